import { CONFIG_FILE, parseConfig } from "../../config/load.ts";
import { fail, ok, type Result } from "../../contract/envelope.ts";
import { ref, type Say } from "../../contract/refer.ts";
import { indexKeyPositions, setKey } from "../../edit/toml.ts";
import { tomlString } from "../../edit/toml-quote.ts";
import { WriteDeniedError, writeFileAtomic } from "../../platform/files.ts";
import { clip } from "../../text/clip.ts";
import { noun, plural } from "../../text/plural.ts";
import { endSentence } from "../../text/sentence.ts";
import type { ConfigData } from "./schema.ts";
import { tomlValue } from "./value.ts";

const BOM = "\uFEFF";

/**
 * `config set KEY VALUE`: edit one line of discern.toml in place, keeping
 * comments, layout, line endings, a byte-order mark and the file's mode. It
 * is written only if the result validates, or, for a file that was already
 * invalid, has fewer problems than before, every one of them already there
 * (so `set` can repair a file, and never trades one problem for another).
 */
export async function setConfigKey(
	root: string,
	path: string,
	key: string,
	input: string,
	dryRun: boolean,
	/** The caller's `ctx.say`, for the hints. */
	say: Say,
): Promise<Result<"config set", ConfigData>> {
	const validate = ref("config validate");
	const base: ConfigData = { path, valid: true, issues: [], key: clip(key) };
	const decoded = new TextDecoder("utf-8", { ignoreBOM: true }).decode(await Bun.file(path).bytes());
	const bom = decoded.startsWith(BOM) ? BOM : "";
	const source = decoded.slice(bom.length);
	const before = parseConfig(source, indexKeyPositions);
	if (!before.ok && before.syntax) {
		return fail(
			"config set",
			"invalid_config",
			"discern.toml is not valid TOML, so it cannot be edited key by key.",
			[say`Fix the syntax error by hand; ${validate} shows where.`],
			{
				data: { ...base, valid: false, issues: before.issues },
			},
		);
	}

	const attempt = (valueText: string) => {
		const edit = setKey(source, key.split("."), valueText);
		return edit.ok ? { edit, checked: parseConfig(edit.text, indexKeyPositions) } : { edit, checked: null };
	};
	const value = tomlValue(input);
	if (value.kind === "invalid") {
		return fail(
			"config set",
			"invalid_arguments",
			`Cannot set \`${clip(key)}\`: ${endSentence(clip(value.reason, 400))} Nothing was written.`,
			['Write it as TOML, e.g. `{ run = "npm test", timeout = 600 }`; to set a string that starts with `{`, quote it as a TOML string.'],
			{ data: base },
		);
	}
	let { edit, checked } = attempt(value.text);
	// `config set repository.trunk 2024` means the branch named 2024, not a number: try the words as a string.
	// A table or an array was written as TOML on purpose: it is never retried as a string.
	if (value.kind === "scalar" && edit.ok && checked && !checked.ok) {
		const asString = attempt(tomlString(input));
		if (asString.checked?.ok) ({ edit, checked } = asString);
	}
	if (!edit.ok)
		return fail(
			"config set",
			"invalid_arguments",
			`Cannot set \`${clip(key)}\`: ${endSentence(clip(edit.reason, 400))}`,
			[say`Open discern.toml and edit it there; ${validate} checks the result.`],
			{ data: base },
		);
	const remaining = checked && !checked.ok ? checked.issues : [];
	// An invalid result is written only as a repair: every problem left was there before (same key, same message), and fewer remain.
	const had = new Set((before.ok ? [] : before.issues).map(issueKey));
	const introduced = remaining.filter((issue) => !had.has(issueKey(issue)));
	const improves = !before.ok && introduced.length === 0 && remaining.length < before.issues.length;
	if (remaining.length > 0 && !improves) {
		const named = introduced[0] ?? remaining[0];
		const why = introduced.length > 0 ? named?.message : `${named?.message ?? "see the issues"} (already there: this edit repairs nothing)`;
		return fail(
			"config set",
			"invalid_arguments",
			`Setting \`${clip(key)}\` to ${clip(edit.after)} would leave discern.toml invalid: ${endSentence(why ?? "see the issues")} Nothing was written.`,
			[say`Check the key and the value's type in ${ref("docs", { target: "config" })}.`],
			{ data: { ...base, valid: false, issues: introduced.length > 0 ? introduced : remaining } },
		);
	}

	const effective = checked?.ok
		? key.split(".").reduce<unknown>((table, part) => (table as Record<string, unknown> | undefined)?.[part], checked.config)
		: undefined;
	const change = { line: edit.line, before: edit.before, after: edit.after };
	const described =
		edit.before === null
			? `add \`${clip(key)} = ${clip(edit.after)}\` at line ${edit.line}`
			: `line ${edit.line}: \`${clip(edit.before)}\` → \`${clip(edit.after)}\``;
	const data: ConfigData = { ...base, valid: remaining.length === 0, issues: remaining, ...(effective !== undefined ? { value: effective } : {}) };
	if (dryRun) {
		return ok(
			"config set",
			`Would ${edit.before === null ? described : `change ${described}`}; nothing was written.`,
			{ ...data, edit: { ...change, written: false } },
			{
				dry_run: true,
				plan: [{ kind: "edit", label: CONFIG_FILE, disposition: "run", note: described }],
			},
		);
	}
	try {
		await writeFileAtomic(root, CONFIG_FILE, `${bom}${edit.text}`, { keepMode: true });
	} catch (error) {
		if (error instanceof WriteDeniedError)
			return fail("config set", "write_denied", error.message, ["discern does not write through symlinks; edit the file itself."], { data: base });
		throw error;
	}
	const left =
		remaining.length > 0
			? say` ${plural(remaining.length, "problem")} ${noun(remaining.length, "remains", "remain")}: ${validate} lists ${noun(remaining.length, "it", "them")}.`
			: "";
	return ok(
		"config set",
		`Set ${clip(key)} = ${clip(edit.after)} (${described}).${left}`,
		{ ...data, edit: { ...change, written: true } },
		{
			hints: [remaining.length > 0 ? "Fix the remaining problems, then commit discern.toml." : "Commit discern.toml when you are happy with it."],
		},
	);
}

/** An issue's identity across two parses: its key and message (its line may move with the edit). */
function issueKey(issue: { key?: string | undefined; message: string }): string {
	return `${issue.key ?? ""}\u0000${issue.message}`;
}
