import { fail, ok, type Result } from "../../contract/envelope.ts";
import { setKey, tomlValue } from "../../config/edit.ts";
import { CONFIG_FILE, parseConfig } from "../../config/load.ts";
import { WriteDeniedError, writeFileAtomic } from "../../platform/files.ts";
import type { ConfigData } from "./schema.ts";

/**
 * `config set KEY VALUE`: edit one line of discern.toml in place, keeping
 * comments and layout, and write it only if the whole file still validates.
 */
export async function setConfigKey(root: string, path: string, key: string, input: string, dryRun: boolean): Promise<Result<"config", ConfigData>> {
	const base: ConfigData = { action: "set", path, valid: true, issues: [], key };
	const source = await Bun.file(path).text();
	const valueText = tomlValue(input);
	const edit = setKey(source, key.split("."), valueText);
	if (!edit.ok) return fail("config", "invalid_arguments", `Cannot set \`${key}\`: ${edit.reason}.`, ["Open discern.toml and edit it there; `discern config validate` checks the result."], { data: base });

	const checked = parseConfig(edit.text);
	if (!checked.ok) {
		const first = checked.issues[0];
		return fail("config", "invalid_arguments", `Setting \`${key}\` to ${valueText} would make discern.toml invalid: ${first?.message ?? "see the issues"}. Nothing was written.`, [
			"Check the key and the value's type in `discern docs config`.",
		], { data: { ...base, valid: false, issues: checked.issues } });
	}
	const value = key.split(".").reduce<unknown>((table, part) => (table as Record<string, unknown> | undefined)?.[part], checked.config);
	const change = { line: edit.line, before: edit.before, after: edit.after };
	const described = edit.before === null ? `add \`${key} = ${edit.after}\` at line ${edit.line}` : `line ${edit.line}: \`${edit.before}\` → \`${edit.after}\``;
	if (dryRun) {
		return ok("config", `Would ${edit.before === null ? described : `change ${described}`}; nothing was written.`, { ...base, value, edit: { ...change, written: false } }, {
			dry_run: true,
			plan: [{ kind: "edit", label: CONFIG_FILE, disposition: "run", note: described }],
		});
	}
	try {
		await writeFileAtomic(root, CONFIG_FILE, edit.text);
	} catch (error) {
		if (error instanceof WriteDeniedError) return fail("config", "write_denied", error.message, ["discern does not write through symlinks; edit the file itself."], { data: base });
		throw error;
	}
	return ok("config", `Set ${key} = ${edit.after} (${described}).`, { ...base, value, edit: { ...change, written: true } }, {
		hints: ["Commit discern.toml when you are happy with it."],
	});
}
