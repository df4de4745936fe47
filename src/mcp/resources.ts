import type { CallerContext } from "../contract/context.ts";
import type { LooseVerb, McpResource } from "../contract/verb.ts";
import { LOOSE_VERBS } from "../registry.ts";
import { invokeVerb } from "./invoke.ts";

/**
 * Resources come from the registry: a verb that declares an `mcpResource`
 * is read at `discern://NAME` (its `data` as JSON, computed fresh on every
 * read; a failed run yields its whole envelope, which says why), and one
 * whose resource has pages at `discern://NAME/{+ARGUMENT}` (each page its
 * own markdown, read through the verb itself, so a target is refused
 * exactly as the tool refuses it).
 */
interface Served {
	verb: LooseVerb;
	resource: McpResource;
	uri: string;
}

const SCHEME = "discern://";

/** The verbs that declare a resource, in registry order. */
function served(verbs: readonly LooseVerb[] = LOOSE_VERBS): Served[] {
	return verbs.flatMap((verb) => (verb.mcpResource ? [{ verb, resource: verb.mcpResource, uri: `${SCHEME}${verb.mcpResource.name}` }] : []));
}

/** Every resource URI, pages as their template (`discern://map/{target}`): what the instructions name. */
export function resourceUris(verbs: readonly LooseVerb[]): string[] {
	return served(verbs).flatMap(({ resource, uri }) => [uri, ...(resource.pages ? [`${uri}/{${resource.pages.argument}}`] : [])]);
}

export function resourceTemplates() {
	return served().flatMap(({ resource, uri }) =>
		resource.pages
			? [
					{
						uriTemplate: `${uri}/{+${resource.pages.argument}}`,
						name: `${resource.name}-page`,
						title: resource.pages.title,
						description: resource.pages.description,
						mimeType: "text/markdown",
					},
				]
			: [],
	);
}

/** The resources, then every page a resource lists (a person picks a page to attach by its own title, "Codex", not by its target). */
export async function listResources(ctx: CallerContext) {
	const all = served();
	const fixed = all.map(({ resource, uri }) => ({
		uri,
		name: resource.name,
		title: resource.title,
		description: resource.description,
		mimeType: "application/json",
	}));
	const listed = await Promise.all(all.filter(({ resource }) => resource.pages?.listed).map((each) => listedPages(each, ctx)));
	return [...fixed, ...listed.flat()];
}

/** The pages the verb names when run without arguments (`data.pages`), each as a resource of its own. */
async function listedPages({ verb, resource, uri }: Served, ctx: CallerContext) {
	const { result } = await invokeVerb(verb, ctx, {});
	const pages = result.ok ? ((result.data as { pages?: { target: string; title: string; summary: string }[] }).pages ?? []) : [];
	return pages.map((page) => ({
		uri: `${uri}/${page.target}`,
		name: `${resource.name}/${page.target}`,
		title: page.title,
		description: page.summary,
		mimeType: "text/markdown",
	}));
}

/** A resource's contents, or null for a URI that names none (a resource-not-found error, SPEC §10). */
export async function readResource(uri: string, ctx: CallerContext): Promise<{ uri: string; mimeType: string; text: string } | null> {
	for (const each of served()) {
		if (uri === each.uri) {
			const { result } = await invokeVerb(each.verb, ctx, {});
			const payload = result.ok ? (result.data ?? {}) : result;
			return { uri, mimeType: "application/json", text: JSON.stringify(payload) };
		}
		if (each.resource.pages && uri.startsWith(`${each.uri}/`)) return page(uri, each, ctx);
	}
	return null;
}

/**
 * A page URI read through its verb, so a target is refused exactly as the
 * tool refuses it; any failure (no such page, a target leading outside the
 * map, no project, a malformed percent-encoding) is no resource at all.
 */
async function page(uri: string, { verb, resource, uri: base }: Served, ctx: CallerContext): Promise<{ uri: string; mimeType: string; text: string } | null> {
	const argument = resource.pages?.argument;
	if (argument === undefined || uri.length === base.length + 1) return null;
	let target: string;
	try {
		target = decodeURIComponent(uri.slice(base.length + 1));
	} catch {
		return null;
	}
	const { result } = await invokeVerb(verb, ctx, { [argument]: target });
	const data = result.ok ? (result.data as { mode?: string; content?: string }) : null;
	return data?.mode === "page" && data.content !== undefined ? { uri, mimeType: "text/markdown", text: data.content } : null;
}
