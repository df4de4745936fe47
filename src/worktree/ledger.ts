import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import * as v from "valibot";
import { writeFileAtomic } from "../platform/files.ts";
import { isWorktreeId } from "./id.ts";

/**
 * The resource ledger: what each worktree's declared resources are, kept
 * in the git common dir (shared by every checkout, never committed) so
 * that whoever removes a worktree — `start`'s rollback, `accept`, `worktree
 * drop|prune|teardown` — can destroy exactly what was created, even after
 * the worktree folder is gone. An entry is written as `creating` before its
 * command runs: a discern killed mid-create still leaves a record.
 *
 * States: `creating` (its create command started), `created`, `destroyed`,
 * `failed` (a create or destroy command failed: it may exist in part).
 */
export const RESOURCE_STATES = ["creating", "created", "destroyed", "failed"] as const;
export type ResourceState = (typeof RESOURCE_STATES)[number];

export const LedgerEntry = v.object({
	name: v.string(),
	/** The command as run: tokens already expanded, so destroying needs no config. */
	create: v.string(),
	destroy: v.string(),
	state: v.picklist(RESOURCE_STATES),
});
export type LedgerEntry = v.InferOutput<typeof LedgerEntry>;

export const Ledger = v.object({
	version: v.literal(1),
	id: v.string(),
	/** The worktree's absolute path. */
	worktree: v.string(),
	entries: v.array(LedgerEntry),
});
export type Ledger = v.InferOutput<typeof Ledger>;

/** `<commonDir>/discern/resources/<id>.json`, relative to the common dir. */
function ledgerFile(id: string): string {
	// The id names a file: refuse anything that could step out of the folder.
	if (!isWorktreeId(id)) throw new Error(`not a worktree id: ${JSON.stringify(id)}`);
	return join("discern", "resources", `${id}.json`);
}

export function ledgerPath(commonDir: string, id: string): string {
	return join(commonDir, ledgerFile(id));
}

/** The ledger, null when there is none; throws when one is there but unreadable (never read as "nothing to destroy"). */
export async function readLedger(commonDir: string, id: string): Promise<Ledger | null> {
	let text: string;
	try {
		text = await readFile(ledgerPath(commonDir, id), "utf8");
	} catch (error) {
		if (typeof error === "object" && error !== null && "code" in error && error.code === "ENOENT") return null;
		throw error;
	}
	return v.parse(Ledger, JSON.parse(text));
}

export async function writeLedger(commonDir: string, ledger: Ledger): Promise<void> {
	await writeFileAtomic(commonDir, ledgerFile(ledger.id), `${JSON.stringify(ledger, null, 2)}\n`, { mode: 0o600 });
}

export async function removeLedger(commonDir: string, id: string): Promise<void> {
	await rm(ledgerPath(commonDir, id), { force: true });
}
