import { afterAll, expect, test } from "bun:test";
import { chmod, copyFile, mkdir, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { REPO_ROOT } from "../helpers/cli.ts";
import { makeTempDir } from "../helpers/repo.ts";

/**
 * tests/fixtures/tool-output holds what the matchers test reads (one `.txt`
 * capture per tool) and how it was made (README.md, capture.sh). The script
 * overwrites a capture only when the tool it runs is there: a check that
 * looked elsewhere would replace a real capture with "No such file".
 */
const FOLDER = join(REPO_ROOT, "tests/fixtures/tool-output");
const dirs: string[] = [];
afterAll(async () => {
	await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

test("the folder holds captures, their README and the script, nothing else", async () => {
	// What is committed there: a tool run by hand in the folder may leave ignored things of its own (pytest's .benchmarks).
	const listed = Bun.spawnSync(["git", "ls-files", "-z", "--", "."], { cwd: FOLDER })
		.stdout.toString()
		.split("\0")
		.filter((name) => name !== "");
	expect(listed.length).toBeGreaterThan(0);
	const strays = listed.filter((name) => !name.endsWith(".txt") && name !== "README.md" && name !== "capture.sh");
	expect(strays).toEqual([]);
});

test("capture.sh skips a JavaScript tool missing from JS_TOOLS even when one of that name is on PATH", async () => {
	const root = await makeTempDir();
	dirs.push(root);
	// A copy of the script in a folder of its own: it writes its captures beside itself.
	const out = join(root, "tests/fixtures/tool-output");
	await mkdir(out, { recursive: true });
	await copyFile(join(FOLDER, "capture.sh"), join(out, "capture.sh"));
	// PATH: the few programs the script needs to make its projects, and an `eslint` that is not the one it would run.
	const bin = join(root, "bin");
	await mkdir(bin);
	for (const program of ["mkdir", "cat", "rm", "dirname", "touch", "env"]) {
		const found = Bun.which(program);
		if (found) await symlink(found, join(bin, program));
	}
	await writeFile(join(bin, "eslint"), "#!/bin/sh\necho eslint from PATH\n");
	await chmod(join(bin, "eslint"), 0o755);
	const jsTools = join(root, "js-tools");
	await mkdir(jsTools);
	// One tool that is where the script runs it from: its capture is made, so the script really ran past eslint's.
	await writeFile(join(jsTools, "oxlint"), "#!/bin/sh\necho oxlint from JS_TOOLS\n");
	await chmod(join(jsTools, "oxlint"), 0o755);
	const bash = Bun.which("bash") ?? "/bin/bash";
	const run = Bun.spawn([bash, join(out, "capture.sh")], {
		env: { PATH: bin, JS_TOOLS: jsTools, CAPTURE_WORK: join(root, "work") },
		stdout: "pipe",
		stderr: "pipe",
	});
	await run.exited;
	expect((await readdir(out)).sort()).toEqual(["capture.sh", "oxlint.txt"]);
	expect(await Bun.file(join(out, "oxlint.txt")).text()).toBe("oxlint from JS_TOOLS\n");
	expect(await new Response(run.stdout).text()).not.toContain("eslint");
});
