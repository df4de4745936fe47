/**
 * Gate benchmarks: fixtures and probes for `done` overhead, a job printing
 * 200 MB (discern's peak memory and throughput), and `impact` on 50 000
 * changed paths against 20 scopes.
 */
import { lstat, mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Probe, WHOLE } from "./measure.ts";

export const NOISY_BYTES = 200 * 1024 * 1024;
const IMPACT_PATHS = 50_000;
const IMPACT_SCOPES = 20;

export interface GateFixtures {
	/** Four test-stage jobs of `sleep 1`. */
	sleeps: string;
	/** One test job printing 200 MB. */
	noisy: string;
	/** 20 scopes and 50 000 untracked files. */
	impact: string;
}

export async function makeGateFixtures(dir: string): Promise<GateFixtures> {
	const sleeps = join(dir, "sleeps");
	const noisy = join(dir, "noisy");
	const impact = join(dir, "impact");
	const sleepJobs = [1, 2, 3, 4].map((n) => `[jobs.sleep${n}]\nstage = "test"\nrun = "sleep 1"\n`).join("");
	await makeRepo(sleeps, sleepJobs);
	await makeRepo(noisy, `[jobs]\ntest = "head -c ${NOISY_BYTES} /dev/zero | tr '\\\\0' x"\n`);
	const scopes = Array.from({ length: IMPACT_SCOPES }, (_, i) => `[scopes.s${i}]\npaths = ["area${i}/**", "*.ext${i}"]\n`).join("");
	await makeRepo(impact, `[jobs]\ntest = "true"\n${scopes}`);
	// Untracked paths spread over the scopes and outside them.
	for (let folder = 0; folder < IMPACT_PATHS / 500; folder++) {
		const path = join(impact, `area${folder % (IMPACT_SCOPES + 5)}`, `batch${folder}`);
		await mkdir(path, { recursive: true });
		await Promise.all(Array.from({ length: 500 }, (_, i) => writeFile(join(path, `f${i}.txt`), "")));
	}
	return { sleeps, noisy, impact };
}

async function makeRepo(dir: string, config: string): Promise<void> {
	await mkdir(dir, { recursive: true });
	await writeFile(join(dir, "discern.toml"), config);
	for (const args of [
		["init", "-q", "-b", "main"],
		["config", "user.name", "discern bench"],
		["config", "user.email", "bench@example.invalid"],
		["config", "commit.gpgsign", "false"],
		["add", "-A"],
		["commit", "-q", "-m", "fixture"],
	]) {
		const proc = Bun.spawn(["git", ...args], { cwd: dir, stdin: "ignore", stdout: "ignore", stderr: "pipe" });
		if ((await proc.exited) !== 0) throw new Error(`git ${args.join(" ")} failed in ${dir}`);
	}
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
				const status = await Bun.file(`/proc/${proc.pid}/status`).text().catch(() => "");
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
