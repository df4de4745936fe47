/**
 * Gate benchmarks: fixtures and probes for `done` overhead, a job printing
 * 200 MB (discern's peak memory and throughput), and `impact` on 50 000
 * changed paths against 20 scopes.
 */
import { lstat, mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Probe, WHOLE } from "./measure.ts";
import { commitFixture } from "./setup.ts";

export const NOISY_BYTES = 200 * 1024 * 1024;
const IMPACT_PATHS = 50_000;
const IMPACT_SCOPES = 20;

export interface GateFixtures {
	/** Four test-stage jobs of `sleep 1`. */
	sleeps: string;
	/** The same four `sleep 1` as one lefthook hook running its jobs in parallel. */
	lefthook: string;
	/** One test job printing 200 MB. */
	noisy: string;
	/** 20 scopes and 50 000 untracked files, made on first use (a bench run that skips `impact` never writes them). */
	impact: () => Promise<string>;
}

export async function makeGateFixtures(dir: string): Promise<GateFixtures> {
	const sleeps = join(dir, "sleeps");
	const lefthook = join(dir, "lefthook");
	const noisy = join(dir, "noisy");
	const impact = join(dir, "impact");
	const sleepJobs = [1, 2, 3, 4].map((n) => `[jobs.sleep${n}]\nstage = "test"\nrun = "sleep 1"\n`).join("");
	await makeRepo(sleeps, sleepJobs);
	await makeRepo(lefthook, "", { "lefthook.yml": LEFTHOOK_CONFIG });
	await makeRepo(noisy, `[jobs]\ntest = "head -c ${NOISY_BYTES} /dev/zero | tr '\\\\0' x"\n`);
	let made: Promise<string> | undefined;
	return { sleeps, lefthook, noisy, impact: () => (made ??= makeImpactRepo(impact).then(() => impact)) };
}

async function makeImpactRepo(impact: string): Promise<void> {
	const scopes = Array.from({ length: IMPACT_SCOPES }, (_, i) => `[scopes.s${i}]\npaths = ["area${i}/**", "*.ext${i}"]\n`).join("");
	await makeRepo(impact, `[jobs]\ntest = "true"\n${scopes}`);
	// Untracked paths spread over the scopes and outside them.
	for (let folder = 0; folder < IMPACT_PATHS / 500; folder++) {
		const path = join(impact, `area${folder % (IMPACT_SCOPES + 5)}`, `batch${folder}`);
		await mkdir(path, { recursive: true });
		await Promise.all(Array.from({ length: 500 }, (_, i) => writeFile(join(path, `f${i}.txt`), "")));
	}
}

/**
 * A hook of lefthook's own name (`lefthook run gate`): a git hook name such
 * as pre-commit skips jobs without staged files. Parallel, as discern runs a stage.
 */
const LEFTHOOK_HOOK = "gate";
const LEFTHOOK_CONFIG = `${LEFTHOOK_HOOK}:\n  parallel: true\n  jobs:\n${[1, 2, 3, 4].map((n) => `    - name: sleep${n}\n      run: sleep 1\n`).join("")}`;

async function makeRepo(dir: string, config: string, files: Readonly<Record<string, string>> = {}): Promise<void> {
	await mkdir(dir, { recursive: true });
	await writeFile(join(dir, "discern.toml"), config);
	for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
	await commitFixture(dir, "fixture");
}

/**
 * `discern done` from spawn to exit, with the previous run's Proof removed
 * first (untimed): an unchanged tree would otherwise be answered from its Proof.
 * `measure: "time"` reports the wall time; `"rss"` discern's own peak resident
 * memory in MB (its VmHWM, sampled until it exits; the jobs are separate processes);
 * `"disk"` the MB on disk under `.git/discern` once it exited (every kept run's logs).
 */
export function gateRun(label: string, discern: string, repo: string, measure: "time" | "rss" | "disk" = "time"): Probe {
	return {
		label,
		run: async () => {
			await rm(join(repo, ".git", "discern", "proof.json"), { force: true });
			const start = performance.now();
			const proc = Bun.spawn([discern, "done", "--json"], { cwd: repo, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
			let peakKb = 0;
			const sample = async () => {
				const status = await Bun.file(`/proc/${proc.pid}/status`)
					.text()
					.catch(() => "");
				peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
			};
			const sampler = measure === "rss" ? setInterval(() => void sample(), 10) : undefined;
			const code = await proc.exited;
			const elapsed = performance.now() - start;
			if (sampler) clearInterval(sampler);
			if (code !== 0) throw new Error(`discern done exited with ${code} in ${repo}`);
			if (measure === "disk") return { disk: (await diskBytes(join(repo, ".git", "discern"))) / (1024 * 1024) };
			return measure === "rss" ? { rss: peakKb / 1024 } : { [WHOLE]: elapsed };
		},
	};
}

/** Bytes allocated on disk under a folder (blocks, so a sparse file counts what it holds). */
async function diskBytes(dir: string): Promise<number> {
	let total = 0;
	for (const name of await readdir(dir, { recursive: true })) total += ((await lstat(join(dir, name)).catch(() => null))?.blocks ?? 0) * 512;
	return total;
}

/**
 * lefthook's Go binary (from the `lefthook` dev dependency's package for this
 * platform, run directly: no npx, no node wrapper) running the fixture's hook,
 * from spawn to exit. Hooks are not installed into git (`--no-auto-install`):
 * the run is what is compared, as `discern done` is.
 */
export function lefthookRun(label: string, lefthook: string, repo: string): Probe {
	return {
		label,
		run: async () => {
			const start = performance.now();
			const proc = Bun.spawn([lefthook, "run", LEFTHOOK_HOOK, "--no-auto-install", "--no-tty", "--colors", "off"], {
				cwd: repo,
				stdin: "ignore",
				stdout: "ignore",
				stderr: "ignore",
			});
			const code = await proc.exited;
			const elapsed = performance.now() - start;
			if (code !== 0) throw new Error(`lefthook run ${LEFTHOOK_HOOK} exited with ${code} in ${repo}`);
			return { [WHOLE]: elapsed };
		},
	};
}

/** lefthook's binary for this platform, as its package resolves it (null when the dev dependency is not installed). */
export function lefthookBinary(): string | null {
	const exe = process.platform === "win32" ? ".exe" : "";
	const os = process.platform === "win32" ? "windows" : process.platform;
	try {
		return require.resolve(`lefthook-${os}-${process.arch}/bin/lefthook${exe}`);
	} catch {
		return null;
	}
}

/** lefthook's own output for one run of the fixture's hook: the check that it really ran all four jobs. */
export async function lefthookPreflight(lefthook: string, repo: string): Promise<void> {
	const proc = Bun.spawn([lefthook, "run", LEFTHOOK_HOOK, "--no-auto-install", "--no-tty", "--colors", "off"], {
		cwd: repo,
		stdin: "ignore",
		stdout: "pipe",
		stderr: "pipe",
	});
	const [code, out, err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
	const ran = [1, 2, 3, 4].filter((n) => new RegExp(`[✓✔]\\S* sleep${n} \\(`).test(out)).length;
	if (code !== 0 || ran !== 4) throw new Error(`lefthook did not run the four jobs (exit ${code}, ${ran} passed): ${out}${err}`);
}

/**
 * The git reads behind a Proof (src/git/evidence/evidence.ts, src/proof/trunk-watch.ts)
 * around the same four jobs, as one sh script: the rounds before the first
 * job (where git says the work tree is and what HEAD is, beside the branch
 * list; the commit's tree read back; the untracked files and the stray
 * ignore and attribute files listed against the private index, which
 * discern writes in-process: here it is made once, by the warm-up; the
 * checkout's own index listed) and the look after the phase. No hashing,
 * no parsing, no Proof written: less than any gate that vouches for the
 * tree can do.
 */
export function proofReadsScript(repo: string, scratch: string): string {
	const index = join(scratch, "proof-reads-index");
	const untracked = "git ls-files -z --others --exclude-per-directory=.gitignore >/dev/null";
	const strays =
		"git ls-files -z --others --ignored --directory --exclude-per-directory=.gitignore -- ':(glob)**/.gitattributes' ':(glob)**/.gitignore' >/dev/null";
	// The checkout's own index, entry by entry (GIT_INDEX_FILE names the private one for the other reads).
	const staged = "GIT_INDEX_FILE=.git/index git ls-files -s -z >/dev/null";
	return [
		`cd '${repo}' && export GIT_INDEX_FILE='${index}' GIT_OPTIONAL_LOCKS=0`,
		`[ -f '${index}' ] || git read-tree HEAD`,
		"git rev-parse --show-toplevel --absolute-git-dir --git-common-dir 'HEAD^{commit}' --symbolic-full-name HEAD >/dev/null & git for-each-ref refs/heads/ >/dev/null & wait",
		// The commit and its root tree, from one object reader.
		"printf 'HEAD\\nHEAD^{tree}\\n' | git cat-file --batch >/dev/null",
		`${untracked} & ${strays} & ${staged} & wait`,
		"sleep 1 & sleep 1 & sleep 1 & sleep 1 & wait",
		`git for-each-ref refs/heads/main >/dev/null & ${untracked} & ${strays} & ${staged} & wait`,
	].join("\n");
}

/**
 * The least a gate written for Bun can do to vouch for the tree: a compiled
 * hello-world starting and exiting (discern's runtime, doing nothing), then
 * the Proof's git reads by sh around the same four jobs (proofReadsScript).
 * No configuration read, no job scheduled by the runtime, no Proof written.
 */
export function bunProofFloor(label: string, hello: string, repo: string, scratch: string): Probe {
	return shellRun(label, `'${hello}' >/dev/null\n${proofReadsScript(repo, scratch)}`);
}

/** A shell running the same command straight, for the throughput baseline. */
export function shellRun(label: string, command: string): Probe {
	return {
		label,
		run: async () => {
			const start = performance.now();
			const proc = Bun.spawn(["sh", "-c", command], { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
			if ((await proc.exited) !== 0) throw new Error(`\`${command}\` failed`);
			return { [WHOLE]: performance.now() - start };
		},
	};
}
