/**
 * The scale section (issue 23, SPEC §13): discern's looks at a repository of
 * 50 000 files (scale-fixture.ts) against git's own doing the same work, in
 * the same rounds. Every probe leaves the repository as the next one expects
 * it: on `main`, committed, clean, no worktree but the main checkout.
 *
 * Per-run state (a fresh commit, a worktree to land, the worktree removed
 * afterwards) is made outside the timed part of each run, as gate.ts and
 * seed.ts do; each timed discern run is checked for the answer it was meant
 * to give (a reused Proof, a gate that ran, a landing), since timing the
 * wrong path would prove nothing.
 */
import { rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { type Phases, type Probe, WHOLE } from "./measure.ts";
import { fileText, git, makeScaleRepo, type ScaleRepo, settleMs } from "./scale-fixture.ts";
import { compiled } from "./setup.ts";

/** The phase of a `done` run without its jobs: what the look costs (its budget is a ratio plus the jobs' own time). */
export const LOOK = "look (whole − jobs)";

/**
 * The repository, made on first use (a bench that skips the scale section never builds it), then left to
 * settle and gated once, untimed, so that it starts proven and with its file facts kept.
 */
export function scaleFixture(dir: string, discern: string): () => Promise<Scale> {
	let made: Promise<Scale> | undefined;
	return () => {
		made ??= (async () => {
			const began = performance.now();
			const repo = await makeScaleRepo(join(dir, "repo"));
			process.stderr.write(
				`made the scale repository: ${repo.files.toLocaleString("en")} files, ${(repo.bytes / 1e6).toFixed(0)} MB, in ${((performance.now() - began) / 1000).toFixed(1)} s\n`,
			);
			const scale = new Scale(repo, discern);
			await scale.proveSettled();
			return scale;
		})();
		return made;
	};
}

/** The scale repository and what the probes do to it between timed runs. */
export class Scale {
	/** When a file of the main checkout was last written (performance.now), for the settling rule. */
	private changedAt = performance.now();
	private edits = 0;

	constructor(
		readonly repo: ScaleRepo,
		readonly discern: string,
	) {}

	get root(): string {
		return this.repo.root;
	}

	/**
	 * Wait until the files written last are old enough for discern to keep what it reads of them, then
	 * gate the tree untimed: HEAD has a Proof and every file's facts are kept, the state of a tree an agent
	 * proved a while ago.
	 */
	async proveSettled(): Promise<void> {
		await Bun.sleep(Math.max(0, this.changedAt + settleMs(this.root) - performance.now()));
		await discernJson(this.discern, ["done"], this.root);
	}

	/** One generated file rewritten (a new slice of text, a similar size) and committed: a one-file change. */
	async editAndCommit(root = this.root): Promise<void> {
		this.edits++;
		const path = this.repo.paths[Math.floor(this.repo.random() * this.repo.paths.length)] as string;
		await writeFile(join(root, path), fileText(`${path} edit ${this.edits}`, this.repo.pool, this.repo.random));
		if (root === this.root) this.changedAt = performance.now();
		await git(root, ["commit", "-q", "-a", "-m", `bench: edit ${this.edits}`]);
	}

	/** The main checkout's files moved (a landing fast-forwarded them). */
	touched(): void {
		this.changedAt = performance.now();
	}

	/** Where the baselines put their worktrees: beside discern's (`<repo>.worktrees/`), on the same disk. */
	worktreePath(name: string): string {
		return `${this.root}.worktrees/${name}`;
	}
}

interface Envelope {
	ok: boolean;
	data?: Record<string, unknown>;
	steps?: { kind?: string; duration_s?: number }[];
}

/** A discern verb with `--json`, untimed: its envelope, which must say ok. */
async function discernJson(discern: string, args: readonly string[], cwd: string): Promise<Envelope> {
	const { envelope } = await timedJson(discern, args, cwd);
	return envelope;
}

/** A discern verb with `--json` from spawn to exit, and its envelope (ok, or the run fails). */
async function timedJson(discern: string, args: readonly string[], cwd: string): Promise<{ elapsed: number; envelope: Envelope }> {
	const start = performance.now();
	const proc = Bun.spawn([discern, ...args, "--json"], { cwd, stdin: "ignore", stdout: "pipe", stderr: "ignore" });
	const [code, stdout] = await Promise.all([proc.exited, new Response(proc.stdout).text()]);
	const elapsed = performance.now() - start;
	let envelope: Envelope | undefined;
	try {
		envelope = JSON.parse(stdout) as Envelope;
	} catch {}
	if (code !== 0 || envelope?.ok !== true) throw new Error(`discern ${args.join(" ")} exited ${code} in ${cwd}: ${stdout.slice(0, 600)}`);
	return { elapsed, envelope };
}

/** A shell command from spawn to exit in the repository. */
async function timedShell(command: string, cwd: string): Promise<number> {
	const start = performance.now();
	const proc = Bun.spawn(["sh", "-c", command], { cwd, stdin: "ignore", stdout: "ignore", stderr: "pipe" });
	const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
	const elapsed = performance.now() - start;
	if (code !== 0) throw new Error(`\`${command}\` failed in ${cwd} (${code}): ${stderr.trim()}`);
	return elapsed;
}

/** Runs `prepare` once, untimed, before the probe's first run. */
function once(prepare: () => Promise<void>): () => Promise<void> {
	let done: Promise<void> | undefined;
	return () => {
		done ??= prepare();
		return done;
	};
}

/** `discern status --json` in the main checkout of a proven tree whose facts are kept. */
export function scaleStatus(scale: () => Promise<Scale>): Probe {
	const ready = once(async () => (await scale()).proveSettled());
	return {
		label: "discern status --json",
		run: async () => {
			const s = await scale();
			await ready();
			return { [WHOLE]: (await timedJson(s.discern, ["status"], s.root)).elapsed };
		},
	};
}

/** `git status --porcelain` in the main checkout; `phases` names the phases it stands for (one figure for each). */
export function gitStatus(scale: () => Promise<Scale>, phases: readonly string[] = [WHOLE]): Probe {
	return {
		label: "git status --porcelain",
		run: async () => {
			const elapsed = await timedShell("git status --porcelain >/dev/null", (await scale()).root);
			return Object.fromEntries(phases.map((phase) => [phase, elapsed]));
		},
	};
}

/** `discern done` on a tree it proved already, nothing changed since: it must answer from the Proof, running nothing. */
export function scaleProvenDone(scale: () => Promise<Scale>): Probe {
	const ready = once(async () => (await scale()).proveSettled());
	return {
		label: "discern done --json (already proven, nothing ran)",
		run: async () => {
			const s = await scale();
			await ready();
			const { elapsed, envelope } = await timedJson(s.discern, ["done"], s.root);
			if (envelope.data?.gate_ran !== false) throw new Error("discern done ran the gate on a tree it had proven: nothing to reuse");
			return { [WHOLE]: elapsed };
		},
	};
}

/**
 * The first `done` on the tree: its Proof and its kept file facts removed first (untimed), so every file
 * is read, as in a checkout discern never looked at.
 */
export function scaleFirstDone(scale: () => Promise<Scale>): Probe {
	return {
		label: "discern done --json (first: no Proof, no file facts)",
		run: async () => {
			const s = await scale();
			const state = join(s.root, ".git", "discern");
			await rm(join(state, "proof.json"), { force: true });
			await rm(join(state, "content-ids"), { force: true });
			const { elapsed, envelope } = await timedJson(s.discern, ["done"], s.root);
			if (envelope.data?.gate_ran !== true) throw new Error("the first discern done did not run the gate");
			return { [WHOLE]: elapsed };
		},
	};
}

/**
 * The least a Bun program can do to look at the tree (look-floor.ts): started, one stat per tracked file,
 * one listing per tracked folder. Built and given the list of tracked paths once, untimed.
 */
export function lookFloor(scale: () => Promise<Scale>): Probe {
	const ready = once(async () => {
		const s = await scale();
		const dir = dirname(s.root);
		const list = join(dir, "tracked-paths");
		await writeFile(list, await git(s.root, ["ls-files", "-z"]));
		floor = { binary: await compiled(join(import.meta.dir, "look-floor.ts"), join(dir, "look-floor")), list };
	});
	let floor: { binary: string; list: string } | undefined;
	return {
		label: "look-floor (Bun: a stat per file, a listing per folder)",
		run: async () => {
			const s = await scale();
			await ready();
			if (!floor) throw new Error("the floor was not built");
			return { [WHOLE]: await timedShell(`'${floor.binary}' '${s.root}' '${floor.list}'`, s.root) };
		},
	};
}

/** Every tracked file hashed by git: the bytes the first look must read, at git's speed. */
export function gitHashAll(scale: () => Promise<Scale>): Probe {
	return {
		label: "git ls-files | git hash-object --stdin-paths",
		run: async () => ({ [WHOLE]: await timedShell("git ls-files | git hash-object --stdin-paths >/dev/null", (await scale()).root) }),
	};
}

/**
 * `done` after one file was edited and committed (untimed), the rest unchanged and known from the runs
 * before. Phases: the whole run, and the run without its jobs' own time (LOOK).
 */
export function scaleEditedDone(scale: () => Promise<Scale>): Probe {
	const ready = once(async () => (await scale()).proveSettled());
	return {
		label: "discern done --json (one file edited and committed)",
		run: async () => {
			const s = await scale();
			await ready();
			await s.editAndCommit();
			const { elapsed, envelope } = await timedJson(s.discern, ["done"], s.root);
			if (envelope.data?.gate_ran !== true) throw new Error("discern done did not run the gate on a new commit");
			const jobs = (envelope.steps ?? []).filter((step) => step.kind === "job").reduce((sum, step) => sum + (step.duration_s ?? 0) * 1000, 0);
			return { [WHOLE]: elapsed, [LOOK]: elapsed - jobs };
		},
	};
}

/** `discern start` from the main checkout; the worktree is dropped afterwards, untimed. */
export function scaleStart(scale: () => Promise<Scale>): Probe {
	const ready = once(async () => (await scale()).proveSettled());
	return {
		label: "discern start --json",
		run: async () => {
			const s = await scale();
			await ready();
			const { elapsed, envelope } = await timedJson(s.discern, ["start", "--name", "bench-start"], s.root);
			const id = envelope.data?.id;
			if (typeof id !== "string") throw new Error(`discern start returned no id: ${JSON.stringify(envelope.data)}`);
			await discernJson(s.discern, ["worktree", "drop", id, "--force"], s.root);
			return { [WHOLE]: elapsed };
		},
	};
}

/** `git worktree add` of a new branch beside discern's worktrees; removed afterwards, untimed. */
export function gitWorktreeAdd(scale: () => Promise<Scale>): Probe {
	let n = 0;
	return {
		label: "git worktree add -b",
		run: async () => {
			const s = await scale();
			const name = `bench-git-add-${++n}`;
			const path = s.worktreePath(name);
			const elapsed = await timedShell(`git worktree add -q -b '${name}' '${path}'`, s.root);
			await git(s.root, ["worktree", "remove", "--force", path]);
			await git(s.root, ["branch", "-D", name]);
			return { [WHOLE]: elapsed };
		},
	};
}

/**
 * `discern accept --confirmed --target <id>` from the main checkout. Untimed before it: `discern start`,
 * one file edited and committed in the worktree, and `discern done` there, as an agent does before asking
 * to land (the worktree's files are fresh from its checkout: accept reads them, as it would then).
 */
export function scaleAccept(scale: () => Promise<Scale>): Probe {
	const ready = once(async () => (await scale()).proveSettled());
	return {
		label: "discern accept --confirmed --target <id> (files settled but the edit)",
		run: async () => {
			const s = await scale();
			await ready();
			const started = await discernJson(s.discern, ["start", "--name", "bench-accept"], s.root);
			const { id, path } = started.data ?? {};
			if (typeof id !== "string" || typeof path !== "string") throw new Error(`discern start returned no worktree: ${JSON.stringify(started.data)}`);
			// An agent works a while before it lands: the worktree's files have settled, but for the one it edited last.
			await Bun.sleep(settleMs(path));
			await s.editAndCommit(path);
			const proved = await discernJson(s.discern, ["done"], path);
			if (proved.data?.gate_ran !== true) throw new Error("discern done did not gate the worktree's commit");
			const { elapsed, envelope } = await timedJson(s.discern, ["accept", "--confirmed", "--target", id], s.root);
			s.touched();
			if (envelope.data?.landed !== true || envelope.data.worktree_removed !== true || envelope.data.branch_deleted !== true) {
				throw new Error(`discern accept did not land and clean up: ${JSON.stringify(envelope.data)}`);
			}
			return { [WHOLE]: elapsed };
		},
	};
}

/**
 * The same landing by hand, timed as one sh script: `git merge --ff-only` in the main checkout, `git
 * worktree remove`, `git branch -d`. Untimed before it: `git worktree add -b` and one file edited and
 * committed there.
 */
export function gitLanding(scale: () => Promise<Scale>): Probe {
	let n = 0;
	return {
		label: "git merge --ff-only + worktree remove + branch -d",
		run: async (): Promise<Phases> => {
			const s = await scale();
			const name = `bench-git-land-${++n}`;
			const path = s.worktreePath(name);
			await git(s.root, ["worktree", "add", "-q", "-b", name, path]);
			await s.editAndCommit(path);
			const elapsed = await timedShell(`git merge -q --ff-only '${name}' && git worktree remove '${path}' && git branch -q -d '${name}'`, s.root);
			s.touched();
			return { [WHOLE]: elapsed };
		},
	};
}
