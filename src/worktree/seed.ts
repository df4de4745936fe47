import type { Dirent } from "node:fs";
import { lstat, mkdir, readdir, readlink, realpath, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, isAbsolute, join } from "node:path";
import type { ProgressEvent } from "../contract/context.ts";
import type { PlanItem, Step } from "../contract/envelope.ts";
import { git } from "../git/run.ts";
import { TOKEN_KEY } from "../jobs/runner.ts";
import { cloneTree } from "../platform/clone-tree.ts";
import { isInside, realPathOf, removeEmptyFolders } from "../platform/files.ts";
import { oneLine, quoteName } from "../text/terminal.ts";
import { listWorktrees } from "./git-worktrees.ts";

/**
 * `[worktree].seed`: ignored build caches of the main checkout (node_modules,
 * target) copied into a new worktree before its install step, so that the
 * install has little left to do. A seed is an optimisation: one that is not
 * safe is skipped and said, never an error, and the install that follows
 * makes the worktree right either way. Never copied: anything outside the
 * checkout or reached through a link, tracked content, a Python venv or a
 * conda/pixi environment at any depth, or any folder holding absolute links
 * into the main checkout (the copy would keep using the main checkout's
 * files), a nested repository (its history is a person's; a copy would be a
 * second repository that looks like the first), the repository's own git
 * folders or another worktree (or a folder holding one), and nothing is put
 * where the worktree already has something.
 */
export const SEED_OUTCOMES = ["copied", "missing", "present", "refused", "failed"] as const;
export type SeedOutcome = (typeof SEED_OUTCOMES)[number];

export interface SeedReport {
	path: string;
	outcome: SeedOutcome;
	/** Why it was not copied; absent when it was. */
	why?: string;
}

type Judged = { ok: true; path: string; source: string } | { ok: false; outcome: "missing" | "refused"; why: string };

/**
 * What the main checkout says about one seed, before anything is written:
 * read-only, so a dry run's plan shows the same verdicts a start acts on.
 */
export async function judgeSeed(mainRoot: string, entry: string): Promise<Judged> {
	const path = entry.replace(/\/+$/, "");
	const refused = (why: string): Judged => ({ ok: false, outcome: "refused", why });
	if (path === "" || path === ".") return refused("it names the checkout itself");
	if (isAbsolute(path) || path.includes("\\")) return refused("it is not a path relative to the repository root");
	const parts = path.split("/");
	if (parts.some((part) => part === ".." || part === "." || part === "")) return refused("only plain relative paths are seeded (no `..`, `.` or `//`)");
	if (parts.some((part) => part.toLowerCase() === ".git")) return refused("it is inside git's own folder");
	for (let depth = 1; depth < parts.length; depth++) {
		const on = await lstat(join(mainRoot, ...parts.slice(0, depth))).catch(() => null);
		if (!on) return { ok: false, outcome: "missing", why: "not there in the main checkout" };
		if (on.isSymbolicLink()) return refused(`${quoteName(parts.slice(0, depth).join("/"))} is a symlink: a seed is never reached through a link`);
		if (!on.isDirectory()) return refused(`${quoteName(parts.slice(0, depth).join("/"))} is not a folder`);
	}
	const source = join(mainRoot, path);
	const itself = await lstat(source).catch(() => null);
	if (!itself) return { ok: false, outcome: "missing", why: "not there in the main checkout" };
	if (itself.isSymbolicLink()) return refused("it is a symlink in the main checkout; only a real folder is copied");
	if (!itself.isDirectory()) return refused("it is not a folder");
	// git's own answer: a path git tracks (or that holds tracked files) is never "ignored".
	if ((await git(["check-ignore", "-q", "--", path], mainRoot)).exitCode !== 0) return refused("git does not ignore it: only ignored build output is seeded");
	const tracked = await git(["ls-files", "-z", "--", `:(literal)${path}`], mainRoot);
	if (tracked.exitCode !== 0 || tracked.stdout !== "") return refused("it holds files git tracks");
	if (await holdsVenv(source)) return refused(VENV_OR_CONDA_WHY);
	const overlap = await overlapsGitPlaces(mainRoot, source);
	if (overlap) return refused(overlap);
	return { ok: true, path, source };
}

const VENV_OR_CONDA_WHY = "it is a Python venv (pyvenv.cfg) or a conda environment (conda-meta): its scripts hold absolute paths to the main checkout";

/**
 * Why the seed's real folder is, holds or sits inside one of the
 * repository's git folders or another worktree (a `--separate-git-dir`
 * kept in the checkout and ignored, worktrees placed in an ignored folder),
 * or null. A copy would duplicate the repository itself, or a worktree into
 * the new one.
 */
async function overlapsGitPlaces(mainRoot: string, source: string): Promise<string | null> {
	const real = await realPathOf(source);
	const dirs = await git(["rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir"], mainRoot);
	if (dirs.exitCode !== 0) return "git cannot name the repository's git folders, so the seed cannot be told apart from them";
	const gitDirs = dirs.stdout.split("\n").filter((line) => line !== "");
	const worktrees = await listWorktrees(mainRoot, gitDirs[1] ?? gitDirs[0] ?? "");
	if (worktrees === null) return "git cannot list the repository's worktrees, so the seed cannot be told apart from them";
	const places = [
		...gitDirs.map((dir) => ({ dir, what: "the repository's git folder" })),
		...worktrees.filter((entry) => !entry.main).map((entry) => ({ dir: entry.path, what: "a worktree of this repository" })),
	];
	for (const place of places) {
		const at = await realPathOf(place.dir);
		if (at === real) return `it is ${place.what} (${quoteName(place.dir)}): only a build cache of the checkout is seeded`;
		if (isInside(at, real)) return `it is inside ${place.what} (${quoteName(place.dir)}): only a build cache of the checkout is seeded`;
		if (isInside(real, at)) return `it holds ${place.what} (${quoteName(place.dir)}): only a build cache of the checkout is seeded`;
	}
	return null;
}

/** A seed's line in a dry run's plan. */
export function seedPlanItem(entry: string, judged: Judged): PlanItem {
	return judged.ok
		? { kind: "seed", label: judged.path, disposition: "run", note: "copied from the main checkout (a copy-on-write clone where the filesystem has one)" }
		: { kind: "seed", label: entry, disposition: "skip", note: judged.why };
}

/** Temp folders made by this process so far: two seeds with one name cannot share one. */
let temps = 0;

/**
 * Copy each seed into the worktree at the same relative path, in order.
 * Each goes to a temporary folder outside the work tree first (see
 * `stagingFolder`) and is renamed into place once whole and found safe: an
 * interrupted copy leaves no folder that looks complete, nothing the
 * worktree's status shows, and nothing a drop would save as work.
 */
export async function seedWorktree(
	mainRoot: string,
	worktree: { path: string; gitDir: string },
	seeds: readonly string[],
	signal: AbortSignal,
	/** Told as each seed starts and ends, like a setup step: a large `target` takes a while. */
	progress?: (event: ProgressEvent) => void,
	/**
	 * The run token prefix of start's running-jobs record (jobs/leftovers.ts):
	 * the `cp` carries it like a job, so that should discern be killed
	 * mid-copy, the next gate in the worktree or its drop kills the copy too.
	 */
	tokenPrefix?: string,
): Promise<{ reports: SeedReport[]; steps: Step[] }> {
	const reports: SeedReport[] = [];
	const steps: Step[] = [];
	const mainReal = await realpath(mainRoot);
	const staging = await stagingFolder(mainReal, worktree);
	for (const [done, entry] of seeds.entries()) {
		if (signal.aborted) break;
		const label = `seed ${quoteName(entry.replace(/\/+$/, ""))}`;
		progress?.({ type: "start", label, stage: "setup", done, total: seeds.length });
		const began = performance.now();
		// A seed that cannot be copied (a full disk, a permission) is said and skipped like a refused one.
		const env = tokenPrefix ? { ...process.env, [TOKEN_KEY]: `${tokenPrefix}-seed-${done + 1}` } : undefined;
		const report = await ("why" in staging
			? judgeSeed(mainRoot, entry).then(
					(judged): SeedReport => (judged.ok ? { path: judged.path, outcome: "refused", why: staging.why } : { path: entry, ...judged }),
				)
			: seedOne([mainRoot, mainReal], worktree.path, staging.folder, entry, signal, env)
		).catch(
			(error: unknown): SeedReport => ({
				path: entry,
				outcome: "failed",
				why: `the copy failed: ${oneLine(error instanceof Error ? error.message : String(error))}`,
			}),
		);
		reports.push(report);
		const step: Step = {
			kind: "seed",
			label,
			stage: "setup",
			outcome: report.outcome === "copied" ? "ok" : "skipped",
			duration_s: Math.round(performance.now() - began) / 1000,
		};
		steps.push(step);
		progress?.({ type: "finish", label, stage: "setup", outcome: step.outcome, durationS: step.duration_s, done: done + 1, total: seeds.length });
	}
	return { reports, steps };
}

/**
 * Where a seed is copied before it is renamed into place: a folder outside
 * every work tree, on the worktree's file system (a rename cannot cross
 * one). First choice, the new worktree's own git admin dir
 * (`<common>/worktrees/<id>/discern/seeding`): git status never sees it, a
 * drop saves nothing of it, and git deletes it with the worktree. Else the
 * folder the worktree was made in, when that is outside the main checkout.
 * A copy made inside the worktree, as it once was, could be left there half
 * done by a discern killed mid-copy: the worktree would show it as a change,
 * and a forced drop would save gigabytes of it as work. When neither place
 * will do, the reason (every seed is then skipped with it).
 */
async function stagingFolder(mainReal: string, worktree: { path: string; gitDir: string }): Promise<{ folder: string } | { why: string }> {
	const device = (path: string) =>
		stat(path).then(
			(found) => found.dev,
			() => null,
		);
	const here = await device(worktree.path);
	const state = join(worktree.gitDir, "discern");
	const admin = await lstat(state).catch(() => null);
	if (admin?.isDirectory() && here !== null && (await device(worktree.gitDir)) === here) {
		const seeding = join(state, "seeding");
		await mkdir(seeding).catch(() => undefined);
		if ((await lstat(seeding).catch(() => null))?.isDirectory()) return { folder: seeding };
	}
	const beside = dirname(worktree.path);
	if (here !== null && (await device(beside)) === here && !isInside(mainReal, await realPathOf(beside))) return { folder: beside };
	return {
		why: "the worktree is on another file system than its git folder and the folder it was made in, where each seed is copied whole before it is put in place",
	};
}

async function seedOne(
	mainRoots: readonly [string, string],
	worktree: string,
	staging: string,
	entry: string,
	signal: AbortSignal,
	env: Record<string, string | undefined> | undefined,
): Promise<SeedReport> {
	const judged = await judgeSeed(mainRoots[0], entry);
	if (!judged.ok) return { path: entry, outcome: judged.outcome, why: judged.why };
	const { path, source } = judged;
	const target = join(worktree, path);
	const place = await placeIn(worktree, path);
	if (place) return { path, outcome: place.outcome, why: place.why };
	const temp = join(staging, `.${basename(worktree)}.${basename(target)}.${process.pid}.${++temps}.discern-seed`);
	const cloned = await cloneTree(source, temp, signal, env);
	if (!cloned.ok) {
		await removeEmptyFolders(worktree, target);
		return { path, outcome: "failed", why: `the copy failed: ${oneLine(cloned.why)}` };
	}
	try {
		const unsafe = await unsafeInside(temp, mainRoots);
		if (unsafe) {
			await rm(temp, { recursive: true, force: true });
			await removeEmptyFolders(worktree, target);
			return { path, outcome: "refused", why: unsafe };
		}
		// Checked again just before the rename: a folder renamed onto an empty one would replace it.
		if (await lstat(target).catch(() => null)) {
			await rm(temp, { recursive: true, force: true });
			return { path, outcome: "present", why: "something arrived at that path in the worktree during the copy; it is never overwritten" };
		}
		await rename(temp, target);
		return { path, outcome: "copied" };
	} catch (error) {
		await rm(temp, { recursive: true, force: true });
		throw error;
	}
}

/**
 * Where the seed goes in the worktree: its folders on the way made (real
 * folders, never links: a link a branch commits would lead the copy
 * elsewhere), and nothing there yet. Null when the place is ready.
 */
async function placeIn(worktree: string, path: string): Promise<{ outcome: "present" | "refused"; why: string } | null> {
	const parts = path.split("/");
	for (let depth = 1; depth < parts.length; depth++) {
		const folder = join(worktree, ...parts.slice(0, depth));
		const on = await lstat(folder).catch(() => null);
		if (on?.isSymbolicLink()) return { outcome: "refused", why: `${quoteName(parts.slice(0, depth).join("/"))} is a symlink in the worktree` };
		if (on && !on.isDirectory()) return { outcome: "refused", why: `${quoteName(parts.slice(0, depth).join("/"))} is not a folder in the worktree` };
		if (!on) await mkdir(folder);
	}
	if (await lstat(join(worktree, path)).catch(() => null))
		return { outcome: "present", why: "something is already at that path in the worktree (the checkout or a resource put it there); it is never overwritten" };
	return null;
}

/**
 * A venv's or conda environment's marker, in the seed itself or one level
 * down (`.venvs/py312`): what a dry run can tell before any copy. Deeper
 * ones (`.pixi/envs/default`) are found as the copy is walked.
 */
async function holdsVenv(folder: string): Promise<boolean> {
	const marked = async (at: string) =>
		(await lstat(join(at, "pyvenv.cfg")).catch(() => null)) !== null || (await lstat(join(at, "conda-meta")).catch(() => null))?.isDirectory() === true;
	if (await marked(folder)) return true;
	const entries = await readdir(folder, { withFileTypes: true }).catch(() => [] as Dirent[]);
	for (const entry of entries) if (entry.isDirectory() && (await marked(join(folder, entry.name)))) return true;
	return false;
}

/**
 * Why the copy must not stay, or null: a symlink whose absolute target is in
 * the main checkout (the worktree would run the main checkout's files; a
 * relative link resolves in its new place and is fine), a nested
 * repository (`.git`, a folder or a file), or a Python venv or conda/pixi
 * environment at any depth (`pyvenv.cfg`, `conda-meta`: an editable install
 * there points at the main checkout's source by an absolute path in a .pth
 * file, so the worktree's tests would import the main checkout's code).
 */
async function unsafeInside(copy: string, mainRoots: readonly string[]): Promise<string | null> {
	const folders = [copy];
	for (let folder = folders.pop(); folder !== undefined; folder = folders.pop()) {
		for (const entry of await readdir(folder, { withFileTypes: true })) {
			const at = join(folder, entry.name);
			const inSeed = at.slice(copy.length + 1);
			if (entry.name === ".git") return `it holds a nested git repository (${quoteName(inSeed)}): a person's history is never copied`;
			if (entry.name === "pyvenv.cfg") return `it holds a Python venv (${quoteName(inSeed)}): its scripts hold absolute paths to the main checkout`;
			if (entry.name === "conda-meta" && entry.isDirectory())
				return `it holds a conda or pixi environment (${quoteName(inSeed)}): its files hold absolute paths to the main checkout`;
			if (entry.isDirectory()) folders.push(at);
			else if (entry.isSymbolicLink()) {
				const target = await readlink(at);
				// By its own words or once resolved: a link through another name for the same folder leads there too.
				const resolved = isAbsolute(target) ? [target, await realpath(target).catch(() => target)] : [];
				if (resolved.some((path) => mainRoots.some((root) => isInside(root, path))))
					return `the link ${quoteName(inSeed)} points into the main checkout by an absolute path (${quoteName(target)}): the worktree would use the main checkout's files`;
			}
		}
	}
	return null;
}
