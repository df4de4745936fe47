import type { Result } from "../../contract/envelope.ts";
import type { RenderOptions } from "../../contract/verb.ts";
import { paint } from "../../render/style.ts";
import { plural } from "../../text/plural.ts";
import type { MapData } from "./schema.ts";

export function renderMap(result: Result<"map", MapData>, { color }: RenderOptions): string {
	const data = result.data;
	if (!data) return "";
	switch (data.mode) {
		case "page":
			return data.content.trimEnd();
		case "digest": {
			const width = Math.max(...data.regions.map((region) => region.name.length), 0);
			return data.regions
				.map((region) => {
					const when = region.last_changed ? `changed ${region.last_changed.slice(0, 10)}` : "never committed";
					const moved = region.commits_since ? `, ${plural(region.commits_since, "code commit")} since` : "";
					const pages = plural(region.pages, "page");
					return `${paint(region.name.padEnd(width), "cyan", color)}  ${region.title} (${pages}, ${when}${moved})`;
				})
				.join("\n");
		}
		case "search":
			return data.matches.map((match) => `${paint(match.target, "cyan", color)}  ${match.title}\n    ${match.snippet}`).join("\n");
	}
}
