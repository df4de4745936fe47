import type { CallerContext } from "../contract/context.ts";
import type { LooseVerb } from "../contract/verb.ts";
import { MANUAL } from "../pages/manual.generated.ts";
import { normalizeTarget, type Page, pageFromMarkdown } from "../pages/reader.ts";
import { findVerb, type VerbName } from "../registry.ts";
import { invokeVerb } from "./invoke.ts";

/**
 * Resources are computed fresh on every read and carry the verb's `data`
 * as JSON (a failed verb yields its whole envelope, which says why). Manual
 * pages are the exception: each is its own markdown.
 */
interface ResourceSpec {
	uri: string;
	name: string;
	title: string;
	description: string;
	verb: VerbName;
	input: Record<string, unknown>;
}

const FIXED: readonly ResourceSpec[] = [
	{
		uri: "discern://status",
		name: "status",
		title: "Status",
		description: "Where you are and the next action (discern_status's data).",
		verb: "status",
		input: {},
	},
	{
		uri: "discern://impact",
		name: "impact",
		title: "Impact",
		description: "Which scopes the branch and working tree touch (discern_impact's data).",
		verb: "impact",
		input: {},
	},
	{
		uri: "discern://config",
		name: "config",
		title: "Config",
		description: "discern.toml as discern reads it: validity, problems with lines, and the effective values.",
		verb: "config validate",
		input: {},
	},
	{ uri: "discern://docs", name: "docs", title: "Manual index", description: "discern's manual: every page with its summary.", verb: "docs", input: {} },
	{
		uri: "discern://map",
		name: "map",
		title: "Map",
		description: "The project's map: its regions, with freshness facts (discern_map's data).",
		verb: "map",
		input: {},
	},
];

export const RESOURCE_TEMPLATES = [
	{
		uriTemplate: "discern://docs/{+target}",
		name: "docs-page",
		title: "Manual page",
		description: "One page of discern's manual as markdown, e.g. discern://docs/config or discern://docs/mcp/cursor.",
		mimeType: "text/markdown",
	},
	{
		uriTemplate: "discern://map/{+target}",
		name: "map-page",
		title: "Map page",
		description: "One page of the project's map as markdown, e.g. discern://map/api/auth.",
		mimeType: "text/markdown",
	},
];

let pages: readonly Page[] | undefined;

/** The bundled manual's pages, each with the title and summary its markdown opens with. */
function manualPages(): readonly Page[] {
	pages ??= Object.entries(MANUAL).map(([target, content]) => pageFromMarkdown(target, content));
	return pages;
}

export function listResources() {
	const fixed = FIXED.map(({ uri, name, title, description }) => ({ uri, name, title, description, mimeType: "application/json" }));
	// A person picks a page to attach by its own title ("Codex"), not by its target.
	const manual = manualPages().map((page) => ({
		uri: `discern://docs/${page.target}`,
		name: `docs/${page.target}`,
		title: page.title,
		description: page.summary,
		mimeType: "text/markdown",
	}));
	return [...fixed, ...manual];
}

export async function readResource(uri: string, ctx: CallerContext): Promise<{ uri: string; mimeType: string; text: string } | null> {
	const spec = FIXED.find((candidate) => candidate.uri === uri);
	if (!spec) {
		if (uri.startsWith(MAP_PREFIX)) return mapPage(uri, ctx);
		// A manual page is the page itself: markdown, as a person reads it (SPEC §10).
		const page = manualPage(uri);
		return page ? { uri, mimeType: "text/markdown", text: page.content } : null;
	}
	const verb = findVerb(spec.verb) as unknown as LooseVerb;
	const { result } = await invokeVerb(verb, ctx, spec.input);
	const payload = result.ok ? (result.data ?? {}) : result;
	return { uri, mimeType: "application/json", text: JSON.stringify(payload) };
}

/** The page a `discern://docs/…` URI names, or null: an unknown page is a resource-not-found error (SPEC §10). */
function manualPage(uri: string): Page | null {
	const prefix = "discern://docs/";
	if (!uri.startsWith(prefix) || uri.length === prefix.length) return null;
	let target: string;
	try {
		target = decodeURIComponent(uri.slice(prefix.length));
	} catch {
		return null; // Malformed percent-encoding: no such page.
	}
	const wanted = normalizeTarget(target);
	return manualPages().find((page) => page.target.toLowerCase() === wanted) ?? null;
}

const MAP_PREFIX = "discern://map/";

/**
 * A `discern://map/…` URI read through the map verb itself, so a target is
 * refused exactly as discern_map refuses it; any failure (no such page, a
 * target leading outside the map, no project) is no resource at all.
 */
async function mapPage(uri: string, ctx: CallerContext): Promise<{ uri: string; mimeType: string; text: string } | null> {
	if (uri.length === MAP_PREFIX.length) return null;
	let target: string;
	try {
		target = decodeURIComponent(uri.slice(MAP_PREFIX.length));
	} catch {
		return null;
	}
	const verb = findVerb("map") as unknown as LooseVerb;
	const { result } = await invokeVerb(verb, ctx, { target });
	const data = result.ok ? (result.data as { mode: string; content?: string }) : null;
	return data?.mode === "page" && data.content !== undefined ? { uri, mimeType: "text/markdown", text: data.content } : null;
}
