import type { DiscernConfig } from "../../config/schema.ts";
import { fail, type Result } from "../../contract/envelope.ts";
import { ref, type Say } from "../../contract/refer.ts";
import { clip } from "../../text/clip.ts";
import { nearest } from "../../text/suggest.ts";
import { oneLine } from "../../text/terminal.ts";
import type { StandardsData } from "./schema.ts";

/**
 * The standards a call names (default: every declared one), in declaration
 * order, or `unknown_standard` naming the first unknown one and the
 * closest declared name.
 */
export function selectStandards<const Verb extends "standards" | "standards pin">(
	verb: Verb,
	config: DiscernConfig,
	names: readonly string[] | undefined,
	/** The caller's `ctx.say`, for the hints. */
	say: Say,
): { ok: true; names: string[] } | { ok: false; result: Result<Verb, StandardsData> } {
	const declared = Object.keys(config.standards);
	const unknown = (names ?? []).find((name) => !declared.includes(name));
	if (unknown === undefined) return { ok: true, names: names && names.length > 0 ? declared.filter((name) => names.includes(name)) : declared };
	const suggestion = nearest(unknown, declared);
	const listed =
		declared.length > 0
			? `Declared: ${declared.map((name) => `\`${name}\``).join(", ")}.`
			: "discern.toml declares no standard yet; add one under [standards.NAME].";
	const message = `No standard \`${clip(oneLine(unknown))}\` in discern.toml.${suggestion ? ` Did you mean \`${suggestion}\`?` : ""}`;
	// `discern standards pinn`: the word was the sub-command, mistyped, more likely than a standard's name.
	const meantPin = verb === "standards" && names?.[0] === unknown && unknown !== "pin" && nearest(unknown, ["pin"]) === "pin";
	const hints: [string, ...string[]] = meantPin
		? [say`Did you mean ${ref("standards pin")}?`, listed]
		: suggestion
			? [say`Did you mean ${verb === "standards pin" ? ref("standards pin", { names: [suggestion] }) : ref("standards", { names: [suggestion] })}?`, listed]
			: [listed];
	return { ok: false, result: fail(verb, "unknown_standard", message, hints, { data: { standards: [], interrupted: false } }) };
}
