import { defineVerb } from "../../contract/verb.ts";
import { MapData, MapInput } from "./schema.ts";

/** `map`: its definition. The registry (src/registry.ts) lists it; its code loads only when it runs. */
export const mapVerb = defineVerb({
	name: "map",
	title: "Map: the project's own docs",
	summary: "Read the project's agent-maintained map: the regions digest, a page, or search results.",
	mcpDescription:
		"The project's map: its own docs, one folder per region of the code. No arguments: the regions, each with when its pages last changed and `commits_since`, the commits since then to code they link to (above 0: verify before trusting). `target`: a page as markdown, `path` being the file to edit; `search`: ranked pages. Call it before changing a region, and edit its page in the same commit. Read-only. A target outside the map is refused (unknown_target).",
	mcpGuide: { step: "learn", text: "discern_map is the project's own docs: read a region's page before changing it." },
	mcpResource: {
		name: "map",
		title: "Map",
		description: "The project's map: its regions, with freshness facts (discern_map's data).",
		pages: { argument: "target", title: "Map page", description: "One page of the project's map as markdown, e.g. discern://map/api/auth." },
	},
	group: "Knowledge",
	input: MapInput,
	data: MapData,
	errors: ["no_repository", "no_project", "invalid_config", "unknown_target"] as const,
	annotations: "readOnly",
	exposure: { tool: "discern_map", project: true },
	cli: { positionals: ["target"], aliases: { search: "s" }, examples: ["discern map", "discern map api", "discern map --search auth"] },
	load: () => import("./index.ts").then((module) => module.verb),
});
