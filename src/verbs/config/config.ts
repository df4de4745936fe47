import type * as v from "valibot";
import { asVerb, fail, ok, type Result } from "../../contract/envelope.ts";
import type { VerbContext } from "../../contract/context.ts";
import { loadConfig } from "../../config/load.ts";
import { lockCheckout } from "../../gate/lock.ts";
import { configRefusal, openRepository } from "../../project/open.ts";
import { clip, clipList } from "../../text/clip.ts";
import { nearest } from "../../text/suggest.ts";
import type { ConfigData, ConfigInput } from "./schema.ts";
import { setConfigKey } from "./set.ts";
import { ref, sayFor } from "../../hints/refer.ts";

/** `config validate`, `config get KEY` and `config set KEY VALUE` over the repository's discern.toml. */
export async function config(ctx: VerbContext, input: v.InferOutput<typeof ConfigInput>): Promise<Result<"config", ConfigData>> {
	const say = sayFor(ctx.surface);
	const usage = usageProblem(input, say);
	if (usage) return fail("config", "invalid_arguments", usage, [say`Run ${ref("help", { verb: "config" })}; ${ref("docs", { target: "config" })} lists every key.`]);
	const opened = await openRepository(ctx);
	if (!opened.ok) return asVerb("config", opened.refusal);
	const load = await loadConfig(opened.repository.root, ctx.narrate);
	if (load.state === "missing") return asVerb("config", configRefusal(load, ctx.surface));
	// `set` may be exactly how a person repairs an invalid file: it judges the result itself.
	if (input.action === "set") {
		const dryRun = input.dry_run ?? false;
		const edit = () => setConfigKey(opened.repository.root, load.path, input.key ?? "", input.value ?? "", dryRun, ctx.surface);
		if (dryRun) return edit();
		// A writer like every other: a gate running in this checkout must not see its config change under it.
		const locked = lockCheckout(opened.repository, "config set");
		if (!locked.ok) return asVerb("config", locked.refusal);
		try {
			return await edit();
		} finally {
			locked.lock.release();
		}
	}
	if (load.state === "invalid") {
		const refusal = configRefusal(load, ctx.surface);
		const data: ConfigData = { action: input.action, path: load.path, valid: false, issues: load.issues };
		return fail("config", "invalid_config", refusal.message, [say`Fix each problem listed (every one is in \`data.issues\` with its line); ${ref("docs", { target: "config" })} is the reference.`], { data });
	}
	const base: ConfigData = { action: input.action, path: load.path, valid: true, issues: [] };
	// A valid file's effective values (defaults applied) travel with `validate`: the MCP config resource is this.
	if (input.action === "validate") return ok("config", `${load.path} is valid.`, { ...base, value: load.config });

	const key = input.key ?? "";
	const found = lookup(load.config, key.split("."));
	if (!found.ok) {
		const suggestion = nearest(key, found.siblings.map((sibling) => [...found.parent, sibling].join(".")));
		const hints: [string, ...string[]] = suggestion
			? [`Did you mean \`${clip(suggestion)}\`?`]
			: [`Keys here: ${clipList(found.siblings.map((sibling) => clip(sibling))) || "(none)"}.`];
		return fail("config", "invalid_arguments", `discern.toml has no key \`${clip(key)}\`.`, hints, { data: { ...base, key: clip(key) } });
	}
	return ok("config", `${key} = ${clip(JSON.stringify(found.value) ?? "undefined")}`, { ...base, key, value: found.value });
}

function usageProblem(input: v.InferOutput<typeof ConfigInput>, say: ReturnType<typeof sayFor>): string | null {
	if (input.action !== "validate" && input.key === undefined) {
		return say`\`config ${input.action}\` needs a KEY, e.g. ${ref("config", { action: input.action, key: "gate.timeout", ...(input.action === "set" ? { value: "900" } : {}) })}.`;
	}
	if (input.action === "set" && input.value === undefined) return "`config set` needs a VALUE after the KEY.";
	if (input.action !== "set" && (input.value !== undefined || input.dry_run)) return `\`config ${input.action}\` takes no VALUE or --dry-run; only \`config set\` writes.`;
	if (input.action === "validate" && input.key !== undefined) return "`config validate` checks the whole file; it takes no KEY.";
	return null;
}

type Lookup = { ok: true; value: unknown } | { ok: false; parent: string[]; siblings: string[] };

function lookup(root: unknown, path: readonly string[]): Lookup {
	let current: unknown = root;
	for (let i = 0; i < path.length; i++) {
		const segment = path[i] ?? "";
		const table = typeof current === "object" && current !== null && !Array.isArray(current) ? (current as Record<string, unknown>) : null;
		if (!table || !Object.hasOwn(table, segment)) {
			return { ok: false, parent: path.slice(0, i), siblings: table ? Object.keys(table) : [] };
		}
		current = table[segment];
	}
	return { ok: true, value: current };
}
