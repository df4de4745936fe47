import type * as v from "valibot";
import { type ConfigLoad, loadConfig } from "../../config/load.ts";
import { configRefusal, type Opened, openRepository } from "../../config/open-project.ts";
import type { VerbContext } from "../../contract/context.ts";
import { asVerb, fail, ok, type Result } from "../../contract/envelope.ts";
import { isRecord } from "../../contract/record.ts";
import { ref } from "../../contract/refer.ts";
import type { RepositoryLocation } from "../../git/repository.ts";
import { clip, clipList } from "../../text/clip.ts";
import { nearest } from "../../text/suggest.ts";
import type { ConfigData, ConfigGetInput, ConfigSetInput, ConfigValidateInput } from "./schema.ts";
import { setConfigKey } from "./set.ts";

/** `config validate`: every problem with its line; a valid file's effective values (the MCP config resource is this). */
export async function validateConfig(ctx: VerbContext, _input: v.InferOutput<typeof ConfigValidateInput>): Promise<Result<"config validate", ConfigData>> {
	const read = await readConfig(ctx);
	if (!read.ok) return asVerb("config validate", read.refusal);
	const { load } = read;
	if (load.state === "invalid") return invalid("config validate", ctx, load);
	return ok("config validate", `${load.path} is valid.`, { path: load.path, valid: true, issues: [], value: load.config });
}

/** `config get KEY`: one key's effective value, defaults applied; an unknown key names the nearest one. */
export async function getConfig(ctx: VerbContext, input: v.InferOutput<typeof ConfigGetInput>): Promise<Result<"config get", ConfigData>> {
	const read = await readConfig(ctx);
	if (!read.ok) return asVerb("config get", read.refusal);
	const { load } = read;
	if (load.state === "invalid") return invalid("config get", ctx, load);
	const base: ConfigData = { path: load.path, valid: true, issues: [] };
	const found = lookup(load.config, input.key.split("."));
	if (!found.ok) {
		const suggestion = nearest(
			input.key,
			found.siblings.map((sibling) => [...found.parent, sibling].join(".")),
		);
		const hints: [string, ...string[]] = suggestion
			? [`Did you mean \`${clip(suggestion)}\`?`]
			: [`Keys here: ${clipList(found.siblings.map((sibling) => clip(sibling))) || "(none)"}.`];
		return fail("config get", "invalid_arguments", `discern.toml has no key \`${clip(input.key)}\`.`, hints, { data: { ...base, key: clip(input.key) } });
	}
	return ok("config get", `${input.key} = ${clip(JSON.stringify(found.value) ?? "undefined")}`, { ...base, key: input.key, value: found.value });
}

/** `config set KEY VALUE`: may be exactly how a person repairs an invalid file, so it judges the result itself. */
export async function setConfig(ctx: VerbContext, input: v.InferOutput<typeof ConfigSetInput>): Promise<Result<"config set", ConfigData>> {
	const read = await readConfig(ctx);
	if (!read.ok) return asVerb("config set", read.refusal);
	return setConfigKey(read.repository.root, read.load.path, input.key, input.value, input.dry_run ?? false, ctx.say);
}

async function readConfig(ctx: VerbContext): Promise<Opened<{ repository: RepositoryLocation; load: Exclude<ConfigLoad, { state: "missing" }> }>> {
	const opened = await openRepository(ctx);
	if (!opened.ok) return opened;
	const load = await loadConfig(opened.repository.root, ctx.narrate);
	if (load.state === "missing") return { ok: false, refusal: configRefusal(load, ctx.say) };
	return { ok: true, repository: opened.repository, load };
}

function invalid<const Verb extends "config validate" | "config get">(verb: Verb, ctx: VerbContext, load: Extract<ConfigLoad, { state: "invalid" }>) {
	const { say } = ctx;
	const refusal = configRefusal(load, ctx.say);
	const data: ConfigData = { path: load.path, valid: false, issues: load.issues };
	return fail(
		verb,
		"invalid_config",
		refusal.message,
		[say`Fix each problem listed (every one is in \`data.issues\` with its line); ${ref("docs", { target: "config" })} is the reference.`],
		{ data },
	);
}

type Lookup = { ok: true; value: unknown } | { ok: false; parent: string[]; siblings: string[] };

function lookup(root: unknown, path: readonly string[]): Lookup {
	let current: unknown = root;
	for (let i = 0; i < path.length; i++) {
		const segment = path[i] ?? "";
		const table = isRecord(current) ? current : null;
		if (!table || !Object.hasOwn(table, segment)) {
			return { ok: false, parent: path.slice(0, i), siblings: table ? Object.keys(table) : [] };
		}
		current = table[segment];
	}
	return { ok: true, value: current };
}
