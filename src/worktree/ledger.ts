import { lstatSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { readRegularFile, realPathOf } from "../platform/files.ts";
import { listStateFolder, removeStateFile, stateFolder, statePath, writeStateFile } from "../state/dir.ts";
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
	/** The resource's name in `[worktree.resources]`: its destroy command is the one discern.toml declares for it, never text read from here. */
	name: v.string(),
	state: v.picklist(RESOURCE_STATES),
});
export type LedgerEntry = v.InferOutput<typeof LedgerEntry>;

/**
 * What the create commands' environment was built from (env.ts `EnvSpec`):
 * names and paths only, never a value. A record of what was, not an
 * instruction: a destroy rebuilds its environment from the configuration
 * (resources.ts). Absent in a ledger written before it was recorded.
 */
export const LedgerEnv = v.object({
	main_root: v.string(),
	env_files: v.array(v.string()),
	inherit_env: v.array(v.string()),
	id: v.string(),
	port: v.number(),
	dir: v.string(),
});

export const Ledger = v.object({
	version: v.literal(1),
	id: v.string(),
	/** The worktree's absolute path. */
	worktree: v.string(),
	env: v.optional(LedgerEnv),
	entries: v.array(LedgerEntry),
});
export type Ledger = v.InferOutput<typeof Ledger>;

/** `<commonDir>/discern/resources/<id>.json`, relative to the state folder; reached through no link (state/dir.ts). */
function ledgerFile(id: string): string {
	// The id names a file: refuse anything that could step out of the folder.
	if (!isWorktreeId(id)) throw new Error(`not a worktree id: ${JSON.stringify(id)}`);
	return `${RESOURCES}/${id}.json`;
}

const RESOURCES = "resources";

export function ledgerPath(commonDir: string, id: string): string {
	return statePath(commonDir, ledgerFile(id));
}

/** The ledger, null when there is none; throws when one is there but unreadable (never read as "nothing to destroy"). */
export async function readLedger(commonDir: string, id: string): Promise<Ledger | null> {
	// A link on the way, or in the ledger's place, is not followed: it throws here (unknown resources, not none).
	ledgerFile(id); // Checks the id.
	const folder = stateFolder(commonDir, [RESOURCES], { create: false });
	if (folder === null) return null;
	const path = join(folder, `${id}.json`);
	if (!lstatSync(path, { throwIfNoEntry: false })) return null;
	const bytes = readRegularFile(path, 16 * 1024 * 1024);
	if (bytes === null) throw Object.assign(new Error(`${path} is not a ledger file discern can read`), { code: "EEXIST", path });
	return v.parse(Ledger, JSON.parse(bytes.toString("utf8")));
}

export async function writeLedger(commonDir: string, ledger: Ledger): Promise<void> {
	await writeStateFile(commonDir, ledgerFile(ledger.id), `${JSON.stringify(ledger, null, 2)}\n`, { mode: 0o600 });
}

export async function removeLedger(commonDir: string, id: string): Promise<void> {
	removeStateFile(commonDir, ledgerFile(id));
}

/** Every ledger in the common dir (ids only): what `worktree list` and `status` compare with the worktrees that exist. */
export async function ledgerIds(commonDir: string): Promise<string[]> {
	const names = listStateFolder(commonDir, [RESOURCES]);
	return names
		.filter((name) => name.endsWith(".json"))
		.map((name) => name.slice(0, -".json".length))
		.filter(isWorktreeId)
		.sort();
}

/**
 * Ledgers whose worktree is gone: no listed worktree has the id, or the one
 * that has it lost its folder. An unreadable ledger is reported too (its
 * resources are unknown, not absent).
 */
export async function orphanedLedgers(
	commonDir: string,
	worktrees: readonly { id: string | null; path: string; problem: string | null }[],
): Promise<{ id: string; path: string; resources: string[] }[]> {
	const living = worktrees.filter((worktree) => !worktree.problem?.startsWith("its folder is gone"));
	const alive = new Set(living.flatMap((worktree) => (worktree.id ? [worktree.id] : [])));
	const livingPaths = new Set(await Promise.all(living.map((worktree) => realPathOf(worktree.path))));
	const out: { id: string; path: string; resources: string[] }[] = [];
	for (const id of await ledgerIds(commonDir)) {
		if (alive.has(id)) continue;
		const ledger = await readLedger(commonDir, id).catch(() => null);
		// A ledger naming a worktree that is there is not a gone worktree's: that worktree reports the mismatch (fleet.ts).
		if (ledger && livingPaths.has(await realPathOf(ledger.worktree))) continue;
		if (ledger?.entries.every((entry) => entry.state === "destroyed")) continue;
		out.push({
			id,
			path: ledger?.worktree ?? "",
			resources: ledger ? ledger.entries.filter((entry) => entry.state !== "destroyed").map((entry) => entry.name) : ["(ledger unreadable)"],
		});
	}
	return out;
}
