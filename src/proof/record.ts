import { lstat, mkdir, readdir, readFile, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import * as v from "valibot";
import { isRecord } from "../contract/record.ts";
import { FAILED_STAGES } from "../jobs/schema.ts";
import { writeFileAtomic } from "../platform/files.ts";
import { sealer, sealHolds } from "./seal.ts";

/**
 * Per-checkout gate state, in the checkout's own git admin dir (never
 * committed): the Proof marker, the last run, and run outputs.
 */
export function stateDir(gitDir: string): string {
	return join(gitDir, "discern");
}

/**
 * What a Proof was judged against besides the tree: the trunk (name and
 * sha), the scopes that counted as changed (and why all of them, when the
 * branch is the trunk or git could not list the changes), and whether the
 * never-loosen check could compare with the trunk's config. A Proof is
 * reused only while every part of this is still what `done` would judge now.
 */
export const Judgement = v.strictObject({
	trunk: v.strictObject({ name: v.nullable(v.string()), sha: v.nullable(v.string()) }),
	scopes_changed: v.array(v.string()),
	all_scopes_because: v.nullable(v.string()),
	never_loosen: v.picklist(["checked", "skipped"]),
	/** How the branch changed the gate's own jobs and scopes against the trunk (see proof/gate-changes.ts). */
	gate_changes: v.array(v.string()),
});
export type Judgement = v.InferOutput<typeof Judgement>;

export function sameJudgement(a: Judgement, b: Judgement): boolean {
	return JSON.stringify(v.parse(Judgement, a)) === JSON.stringify(v.parse(Judgement, b));
}

export const ProofRecord = v.object({
	// Version 1 records carry no judgement: they are never reused.
	version: v.literal(2),
	head: v.string(),
	tree: v.string(),
	branch: v.string(),
	config_digest: v.string(),
	judgement: Judgement,
	jobs: v.array(v.object({ label: v.string(), stage: v.string(), duration_s: v.number() })),
	standards: v.array(v.unknown()),
	time: v.string(),
	duration_s: v.number(),
	line: v.string(),
});
export type ProofRecord = v.InferOutput<typeof ProofRecord>;

export const LastRun = v.object({
	verb: v.picklist(["prepare", "test", "done"]),
	ok: v.boolean(),
	failed_stage: v.nullable(v.picklist(FAILED_STAGES)),
	head: v.nullable(v.string()),
	tree: v.nullable(v.string()),
	config_digest: v.string(),
	standalone: v.boolean(),
	time: v.string(),
	duration_s: v.number(),
});
export type LastRun = v.InferOutput<typeof LastRun>;

async function readJson<S extends v.GenericSchema>(path: string, schema: S): Promise<v.InferOutput<S> | null> {
	try {
		const parsed = v.safeParse(schema, JSON.parse(await readFile(path, "utf8")));
		return parsed.success ? parsed.output : null;
	} catch {
		return null;
	}
}

/** The Proof marker, only when its seal holds (see proof-seal.ts): a marker written by hand reads as none. */
export async function readProof(gitDir: string): Promise<ProofRecord | null> {
	let raw: unknown;
	try {
		raw = JSON.parse(await readFile(join(stateDir(gitDir), "proof.json"), "utf8"));
	} catch {
		return null;
	}
	if (!isRecord(raw)) return null;
	const { seal, ...record } = raw;
	if (!(await sealHolds(gitDir, JSON.stringify(record), seal))) return null;
	const parsed = v.safeParse(ProofRecord, record);
	return parsed.success ? parsed.output : null;
}
/** The last run of any gate verb (what `status` reports). */
export const readLastRun = (gitDir: string) => readJson(join(stateDir(gitDir), "last-run.json"), LastRun);
/** The last `done`: kept apart so that a `prepare` in between does not lift the unchanged-tree guard. */
export const readLastDone = (gitDir: string) => readJson(join(stateDir(gitDir), "last-done.json"), LastRun);

/** `sealing`: the sealer asked for earlier (see `sealer`); asked here otherwise. */
export async function writeProof(gitDir: string, proof: ProofRecord, sealing: Promise<(content: string) => string> = sealer(gitDir)): Promise<void> {
	await mkdir(stateDir(gitDir), { recursive: true });
	const seal = (await sealing)(JSON.stringify(proof));
	await writeFileAtomic(stateDir(gitDir), "proof.json", `${JSON.stringify({ ...proof, seal }, null, 2)}\n`);
}

export async function removeProof(gitDir: string): Promise<void> {
	await rm(join(stateDir(gitDir), "proof.json"), { force: true });
}

/**
 * Record a run for `status`; a `done` on the committed tree also becomes
 * the commit's verdict (what `unchanged_tree_rerun` consults) unless
 * `verdict` is false: a standalone run judged a dirty tree, and a run
 * stopped by tree drift may have been disturbed from outside.
 */
export async function writeLastRun(gitDir: string, run: LastRun, options: { verdict?: boolean } = {}): Promise<void> {
	await mkdir(stateDir(gitDir), { recursive: true });
	const text = `${JSON.stringify(run, null, 2)}\n`;
	const verdict = run.verb === "done" && !run.standalone && options.verdict !== false;
	await Promise.all([
		writeFileAtomic(stateDir(gitDir), "last-run.json", text),
		verdict ? writeFileAtomic(stateDir(gitDir), "last-done.json", text) : undefined,
	]);
}

/** How many runs' outputs to keep. */
const KEPT_RUNS = 5;
/**
 * And how many bytes they may hold together. Each job's log is capped (see
 * log-cap.ts), so one run holds at most its job count × the cap; the newest
 * run is kept whatever its size, older ones only while they fit.
 */
export const RUNS_BUDGET_BYTES = 64 * 1024 * 1024;

/**
 * A fresh folder for one run's job logs, named so that runs sort by time.
 * Older runs are pruned first unless `prune` is false (the caller prunes
 * while its run is under way, off the path to its first job).
 */
export async function newRunDir(gitDir: string, verb: string, options: { prune?: boolean } = {}): Promise<string> {
	const runs = join(stateDir(gitDir), "runs");
	await mkdir(runs, { recursive: true });
	const dir = join(runs, `${new Date().toISOString().replace(/[:.]/g, "-")}-${verb}-${process.pid}`);
	await mkdir(dir, { recursive: true });
	if (options.prune !== false) await pruneRuns(dir);
	return dir;
}

/**
 * Remove older runs beyond KEPT_RUNS or RUNS_BUDGET_BYTES, newest kept
 * first, never `current` (the run in progress, or just ended). Housekeeping:
 * what cannot be read or removed is left as it is. `weighCurrent: false`:
 * the current run counts for nothing yet (its logs are still written).
 */
export async function pruneRuns(current: string, options: { weighCurrent?: boolean } = {}): Promise<void> {
	const runs = dirname(current);
	const names = (await readdir(runs).catch(() => [])).sort().reverse();
	let total = options.weighCurrent === false ? 0 : await entryBytes(current);
	let kept = 1;
	let full = false;
	for (const name of names) {
		const path = join(runs, name);
		if (path === current) continue;
		const bytes: number = full ? 0 : await entryBytes(path);
		full ||= kept >= KEPT_RUNS || total + bytes > RUNS_BUDGET_BYTES;
		if (full) {
			await rm(path, { recursive: true, force: true }).catch(() => undefined);
			continue;
		}
		total += bytes;
		kept++;
	}
}

/** A run folder's size: the apparent size of each log (a log left sparse by a killed run counts in full). */
async function entryBytes(path: string): Promise<number> {
	const info = await lstat(path).catch(() => null);
	if (!info) return 0;
	if (!info.isDirectory()) return info.size;
	const names = await readdir(path).catch(() => []);
	const sizes = await Promise.all(names.map(async (name) => (await lstat(join(path, name)).catch(() => null))?.size ?? 0));
	return sizes.reduce((sum, size) => sum + size, 0);
}

export function configDigest(configText: string): string {
	return new Bun.CryptoHasher("sha256").update(configText).digest("hex");
}
