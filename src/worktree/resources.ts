import { lstat, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import * as v from "valibot";
import { writeFileAtomic } from "../platform/files.ts";
import { capture } from "../platform/process.ts";
import { clip } from "../text/clip.ts";

/**
 * The resource ledger of one worktree (`<common>/discern/resources/<id>.json`):
 * what `start` created from `[resources]`, each with the command that
 * destroys it. The commands are the project's own, from discern.toml: the
 * only strings that ever run through `sh`.
 */
const Ledger = v.object({
	version: v.literal(1),
	id: v.string(),
	worktree: v.string(),
	entries: v.array(v.object({ name: v.string(), create: v.string(), destroy: v.string(), state: v.string() })),
});
type Ledger = v.InferOutput<typeof Ledger>;

export interface Destroyed {
	ok: boolean;
	destroyed: string[];
	failed: { name: string; message: string }[];
}

/** Ids become file names: only the shape `start` gives them. */
const SAFE_ID = /^[a-z0-9][a-z0-9-]{0,80}$/;

export function ledgerDir(commonDir: string): string {
	return join(commonDir, "discern", "resources");
}

/**
 * Destroy what the ledger of `id` records, in reverse order of creation,
 * marking each destroyed as it goes (an interrupted run resumes where it
 * stopped); the ledger is removed once nothing is left. ok with no ledger.
 */
export async function destroyResources(commonDir: string, id: string, options: { cwd: string; env: Record<string, string>; signal: AbortSignal }): Promise<Destroyed> {
	if (!SAFE_ID.test(id)) return { ok: true, destroyed: [], failed: [] };
	const dir = ledgerDir(commonDir);
	const name = `${id}.json`;
	const path = join(dir, name);
	const info = await lstat(path).catch(() => null);
	if (!info) return { ok: true, destroyed: [], failed: [] };
	let ledger: Ledger;
	try {
		if (!info.isFile()) throw new Error("not a file");
		ledger = v.parse(Ledger, JSON.parse(await readFile(path, "utf8")));
	} catch (error) {
		return { ok: false, destroyed: [], failed: [{ name: "(ledger)", message: `cannot read ${path}: ${clip(error instanceof Error ? error.message : String(error))}` }] };
	}
	const destroyed: string[] = [];
	const failed: Destroyed["failed"] = [];
	for (const entry of [...ledger.entries].reverse()) {
		if (entry.state === "destroyed") continue;
		if (options.signal.aborted) {
			failed.push({ name: entry.name, message: "interrupted before it ran" });
			continue;
		}
		const run = await capture(["sh", "-c", entry.destroy], { cwd: options.cwd, env: options.env, signal: options.signal });
		if (run.exitCode !== 0) {
			failed.push({ name: entry.name, message: `\`${clip(entry.destroy)}\` exited ${run.exitCode}${run.stderr.trim() ? `: ${clip(run.stderr.trim())}` : ""}` });
			continue;
		}
		entry.state = "destroyed";
		destroyed.push(entry.name);
		await writeFileAtomic(dir, name, `${JSON.stringify(ledger, null, 2)}\n`);
	}
	if (failed.length === 0) await rm(path, { force: true });
	return { ok: failed.length === 0, destroyed, failed };
}
