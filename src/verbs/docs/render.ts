import type { Result } from "../../contract/envelope.ts";
import type { RenderOptions } from "../../contract/verb.ts";
import { paint } from "../../render/style.ts";
import type { DocsData } from "./schema.ts";

export function renderDocs(result: Result<"docs", DocsData>, { color }: RenderOptions): string {
	const data = result.data;
	if (!data) return "";
	switch (data.mode) {
		case "page":
			return data.content.trimEnd();
		case "index": {
			const width = Math.max(...data.pages.map((page) => page.target.length), 0);
			return data.pages.map((page) => `${paint(page.target.padEnd(width), "cyan", color)}  ${page.title}`).join("\n");
		}
		case "search":
			return data.matches.map((match) => `${paint(match.target, "cyan", color)}  ${match.title}\n    ${match.snippet}`).join("\n");
	}
}
