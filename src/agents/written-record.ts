import { createHash } from "node:crypto";
import * as v from "valibot";
import { writeStateFile } from "../state/dir.ts";
import { readStateJson } from "../state/json-file.ts";

/**
 * What `refresh` last wrote to each generated file of a checkout (its
 * sha256), kept in the checkout's own git dir (`discern/generated.json`,
 * never committed). A generated file that is neither what refresh compiles
 * now, nor what HEAD holds, nor what refresh last wrote there was changed by
 * a person since: refresh keeps it (wiring.ts), as uninstall keeps such a
 * file. Without it, an untracked AGENTS.md with a note added by hand would
 * be overwritten by the next refresh, with no copy anywhere.
 */
const RECORD = "generated.json";

const Written = v.object({ version: v.literal(1), files: v.record(v.string(), v.string()) });

export function textHash(text: string): string {
	return createHash("sha256").update(text).digest("hex");
}

/** The hash of what refresh last wrote at `path` in the checkout whose git dir is `gitDir`; null when there is no record (or it cannot be read without following a link). */
export async function lastWritten(gitDir: string, path: string): Promise<string | null> {
	const files = await readRecord(gitDir);
	return files[path] ?? null;
}

/** Record that refresh wrote `text` at `path`. Best effort: a record that cannot be written only makes the next refresh keep the file (never lose an edit). */
export async function recordWritten(gitDir: string, path: string, text: string): Promise<void> {
	const files = { ...(await readRecord(gitDir)), [path]: textHash(text) };
	// Through no link (state/dir.ts), as every state file.
	await writeStateFile(gitDir, RECORD, `${JSON.stringify({ version: 1, files }, null, "\t")}\n`).catch(() => undefined);
}

async function readRecord(gitDir: string): Promise<Record<string, string>> {
	return (await readStateJson(gitDir, RECORD, Written))?.files ?? {};
}
