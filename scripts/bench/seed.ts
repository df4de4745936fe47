/**
 * A worktree that starts warm (`[worktree].seed`, issue 22): `discern start`
 * plus the first `discern prepare` in the new worktree, on a real npm
 * project whose main checkout has its node_modules installed. Two copies of
 * the project differ only in `[worktree]`: seeded (node_modules copied in,
 * then `npm install`, which keeps what is there) and install only (`npm ci`,
 * which deletes node_modules first: with a seed the install must be
 * `npm install`).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Probe, WHOLE } from "./measure.ts";
import { commitFixture } from "./setup.ts";

/** A couple of real, small dependencies; `semver` brings a program the jobs run from node_modules/.bin. */
const PACKAGE = { name: "seed-bench", version: "1.0.0", private: true, dependencies: { semver: "7.6.3", "is-number": "7.0.0", "left-pad": "1.3.0" } };

const JOBS = `[jobs]
lint = "node_modules/.bin/semver -r '>=7' 7.6.3"
typecheck = "node -e \\"require('is-number'); require('left-pad')\\""
`;

export interface NpmFixtures {
	seeded: string;
	installOnly: string;
}

/**
 * The two projects, made on first use (the registry is asked once, for the
 * lockfile; each main checkout is then installed with `npm ci` from it):
 * a bench run that skips these benchmarks needs no network.
 */
export function npmFixtures(dir: string): () => Promise<NpmFixtures> {
	let made: Promise<NpmFixtures> | undefined;
	return () => {
		made ??= (async () => {
			const lock = join(dir, "lock");
			await mkdir(lock, { recursive: true });
			await writeFile(join(lock, "package.json"), `${JSON.stringify(PACKAGE, null, 2)}\n`);
			await run(["npm", "install", "--package-lock-only", "--no-audit", "--no-fund"], lock);
			const lockfile = await Bun.file(join(lock, "package-lock.json")).text();
			const project = async (name: string, worktree: string): Promise<string> => {
				const root = join(dir, name);
				await mkdir(root, { recursive: true });
				await writeFile(join(root, "package.json"), `${JSON.stringify(PACKAGE, null, 2)}\n`);
				await writeFile(join(root, "package-lock.json"), lockfile);
				await writeFile(join(root, ".gitignore"), "node_modules/\n");
				await writeFile(join(root, "discern.toml"), `${JOBS}\n${worktree}`);
				await commitFixture(root, "npm project");
				await run(["npm", "ci", "--no-audit", "--no-fund"], root);
				return root;
			};
			return {
				seeded: await project(
					"seeded",
					'[worktree]\nseed = ["node_modules"]\n[worktree.setup]\nensure = ["npm install --no-audit --no-fund --prefer-offline"]\n',
				),
				installOnly: await project("install-only", '[worktree.setup]\nensure = ["npm ci --no-audit --no-fund --prefer-offline"]\n'),
			};
		})();
		return made;
	};
}

/**
 * `discern start` in the main checkout (phase `start`: worktree, seed,
 * install), then `discern prepare` in the new worktree (phase `prepare`),
 * and the two together; the worktree is dropped afterwards, untimed.
 */
export function startPrepareRun(label: string, discern: string, repo: () => Promise<string>, seeded: boolean): Probe {
	return {
		label,
		run: async () => {
			const root = await repo();
			const began = performance.now();
			const started = JSON.parse(await run([discern, "start", "--json", "--name", "bench"], root)) as {
				ok: boolean;
				data?: { id: string; path: string; seeds?: { outcome: string }[] };
			};
			const afterStart = performance.now();
			if (!started.ok || !started.data) throw new Error(`discern start failed in ${root}: ${JSON.stringify(started)}`);
			// A seed skipped would time the install alone under the seeded label.
			if (seeded !== (started.data.seeds?.[0]?.outcome === "copied")) throw new Error(`discern start in ${root} seeded: ${JSON.stringify(started.data.seeds)}`);
			const prepared = JSON.parse(await run([discern, "prepare", "--json"], started.data.path)) as { ok: boolean };
			const end = performance.now();
			await run([discern, "worktree", "drop", started.data.id, "--force", "--json"], root);
			if (!prepared.ok) throw new Error(`discern prepare failed in ${started.data.path}`);
			return { start: afterStart - began, prepare: end - afterStart, [WHOLE]: end - began };
		},
	};
}

async function run(cmd: readonly string[], cwd: string): Promise<string> {
	const proc = Bun.spawn([...cmd], { cwd, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
	const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
	if (code !== 0) throw new Error(`\`${cmd.join(" ")}\` exited with ${code} in ${cwd}: ${(stderr || stdout).trim().slice(-2000)}`);
	return stdout;
}
