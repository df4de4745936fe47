import type { VerbContext } from "../contract/context.ts";
import type { LooseVerb } from "../contract/verb.ts";
import { findVerb } from "../registry.ts";
import { MANUAL } from "../manual/pages.generated.ts";
import { normalizeTarget } from "../reader/pages.ts";
import { invokeVerb } from "./invoke.ts";

/**
 * Resources are computed fresh on every read and carry the verb's `data`
 * (a failed verb yields its whole envelope, which says why).
 */
interface ResourceSpec {
	uri: string;
	name: string;
	title: string;
	description: string;
	verb: "status" | "config" | "docs" | "impact";
	input: Record<string, unknown>;
}

const FIXED: readonly ResourceSpec[] = [
	{ uri: "discern://status", name: "status", title: "Status", description: "Where you are and the next action (discern_status's data).", verb: "status", input: {} },
	{ uri: "discern://impact", name: "impact", title: "Impact", description: "Which scopes the branch and working tree touch (discern_impact's data).", verb: "impact", input: {} },
	{ uri: "discern://config", name: "config", title: "Config", description: "discern.toml as discern reads it: validity, problems with lines, and the effective values.", verb: "config", input: { action: "validate" } },
	{ uri: "discern://docs", name: "docs", title: "Manual index", description: "discern's manual: every page with its summary.", verb: "docs", input: {} },
];

export const RESOURCE_TEMPLATES = [
	{
		uriTemplate: "discern://docs/{+target}",
		name: "docs-page",
		title: "Manual page",
		description: "One page of discern's manual, e.g. discern://docs/config or discern://docs/mcp/cursor.",
		mimeType: "application/json",
	},
];

export function listResources() {
	const fixed = FIXED.map(({ uri, name, title, description }) => ({ uri, name, title, description, mimeType: "application/json" }));
	const pages = Object.keys(MANUAL).map((target) => ({
		uri: `discern://docs/${target}`,
		name: `docs/${target}`,
		title: `Manual: ${target}`,
		mimeType: "application/json",
	}));
	return [...fixed, ...pages];
}

export async function readResource(uri: string, ctx: VerbContext): Promise<{ uri: string; mimeType: string; text: string } | null> {
	const spec = FIXED.find((candidate) => candidate.uri === uri) ?? docsPage(uri);
	if (!spec) return null;
	const verb = findVerb(spec.verb) as unknown as LooseVerb;
	const { result } = await invokeVerb(verb, ctx, spec.input);
	const payload = result.ok ? (result.data ?? {}) : result;
	return { uri, mimeType: "application/json", text: JSON.stringify(payload) };
}

function docsPage(uri: string): ResourceSpec | null {
	const prefix = "discern://docs/";
	if (!uri.startsWith(prefix) || uri.length === prefix.length) return null;
	let target: string;
	try {
		target = decodeURIComponent(uri.slice(prefix.length));
	} catch {
		return null; // Malformed percent-encoding: no such page.
	}
	// An unknown page is a resource-not-found error (SPEC §10), not a docs refusal echoing its name.
	const wanted = normalizeTarget(target);
	if (!Object.keys(MANUAL).some((page) => page.toLowerCase() === wanted)) return null;
	return { uri, name: target, title: target, description: "", verb: "docs", input: { target } };
}
