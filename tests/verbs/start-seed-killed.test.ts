import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { chmod, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ensureBinary } from "../helpers/cli.ts";
import { makeRepo, makeTempDir, runGit } from "../helpers/repo.ts";

const made: string[] = [];
afterEach(async () => {
	await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Running, not merely not yet reaped: under a gate the orphaned cp's parent is the gate's subreaper, which reaps it in its own time. */
const alive = (pid: number) => {
	try {
		process.kill(pid, 0);
	} catch {
		return false;
	}
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		return !stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
	} catch {
		return false;
	}
};

async function waitFor<T>(probe: () => Promise<T | null>, what: string, seconds = 30): Promise<T> {
	for (const until = Date.now() + seconds * 1000; Date.now() < until; await Bun.sleep(50)) {
		const found = await probe();
		if (found !== null) return found;
	}
	throw new Error(`timed out waiting for ${what}`);
}

describe("start: discern killed (SIGKILL, its pid only) while a seed is copied", () => {
	test("the half-made copy is outside the worktree (its status stays clean), the cp left running is killed by the drop, and the drop saves none of it", async () => {
		const r = await makeRepo({
			config: '[jobs]\ntest = "true"\n[worktree]\nseed = ["node_modules"]\n',
			files: { ".gitignore": "node_modules/\n" },
		});
		made.push(r.root, `${r.root}.worktrees`);
		await mkdir(join(r.root, "node_modules", "left-pad"), { recursive: true });
		await writeFile(join(r.root, "node_modules", "left-pad", "index.js"), "module.exports = 1;\n");
		// A `cp` that copies half and then takes its time, outside any work tree (discern runs only such a cp):
		// a large node_modules is copied so, and it gives the test a moment to kill discern in.
		const bin = await makeTempDir("discern-slow-cp-");
		made.push(bin);
		const mark = join(bin, "copying");
		await writeFile(
			join(bin, "cp"),
			`#!/bin/sh\nfor target; do :; done\nmkdir -p "$target" && echo half > "$target/half-copied"\nprintf '%s\\n%s\\n' "$$" "$target" > "${mark}.tmp" && mv "${mark}.tmp" "${mark}"\nexec sleep 120\n`,
		);
		await chmod(join(bin, "cp"), 0o755);
		const binary = await ensureBinary();
		const env = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ""}`, NO_COLOR: "1" };
		const child = Bun.spawn([binary, "start", "--name", "killed", "--json"], { cwd: r.root, env, stdout: "ignore", stderr: "ignore" });
		const [pidLine = "", target = ""] = await waitFor(async () => {
			const lines = ((await readFile(mark, "utf8").catch(() => null)) ?? "").split("\n").filter(Boolean);
			return lines.length >= 2 ? lines : null;
		}, "the seed copy to start");
		const cp = Number(pidLine);
		child.kill("SIGKILL");
		await child.exited;
		try {
			const [id] = await readdir(`${r.root}.worktrees`);
			if (!id) throw new Error("start made no worktree");
			const worktree = join(`${r.root}.worktrees`, id);
			// The copy was made outside the work tree: the worktree shows no change, nothing of it inside.
			expect(target.startsWith(`${worktree}/`)).toBe(false);
			expect(await runGit(worktree, ["status", "--porcelain", "--ignored"])).toBe("");
			expect(alive(cp)).toBe(true);

			const drop = Bun.spawn([binary, "worktree", "drop", id, "--force", "--json"], { cwd: r.root, env, stdout: "pipe", stderr: "pipe" });
			const out = await new Response(drop.stdout).text();
			expect(await drop.exited).toBe(0);
			const result = JSON.parse(out) as { ok: boolean; data: { recovery_ref: string | null; removed: boolean } };
			expect([result.ok, result.data.removed]).toEqual([true, true]);
			// The cp that outlived discern carried start's run token: the drop killed it.
			await waitFor(async () => (alive(cp) ? null : true), "the left cp to be killed", 10);
			// Nothing of the copy was saved as work, nor left behind in the repository's git folder.
			const saved = result.data.recovery_ref ? await runGit(r.root, ["ls-tree", "-r", "--name-only", result.data.recovery_ref]) : "";
			expect(saved).not.toContain("half-copied");
			expect(await readdir(join(r.root, ".git", "worktrees")).catch(() => [])).toEqual([]);
		} finally {
			if (alive(cp)) process.kill(cp, "SIGKILL");
		}
	}, 60_000);
});
