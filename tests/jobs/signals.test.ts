import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { constants } from "node:os";
import { join } from "node:path";
import { ENDING_SIGNALS, type EndingSignal } from "../../src/contract/exit-codes.ts";
import { REPO_ROOT } from "../helpers/cli.ts";
import { processesWithCommandLine, processesWithEnv, survivors, survivorsByCommandLine, TAG } from "../helpers/processes.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";

/** Every signal that would end discern kills every job tree first; then discern exits 128+n with its envelope. */
const made: TestRepo[] = [];
afterEach(async () => {
	for (const r of made.splice(0)) {
		expect(await survivors(r.root)).toEqual([]);
		await r.remove();
	}
});

/**
 * A gate whose jobs hide in every way they can: one ignores TERM, one has a
 * grandchild, one leaves an orphan in its own session with a cleared
 * environment (found afterwards by its command line, `sleep <marker>`).
 */
async function hidingRepo(marker: string, stubborn: boolean): Promise<TestRepo> {
	const lint = stubborn ? "trap '' TERM; sleep 60" : "sleep 60";
	const r = await makeRepo({
		config: `[jobs]\nlint = "${lint}"\ntest = "sh -c 'sleep 60' & sleep 60"\n[jobs.hide]\nstage = "check"\nrun = "(setsid env -i sleep ${marker} &); sleep 60"\n`,
	});
	made.push(r);
	return r;
}

async function startGate(root: string, verb = "done"): Promise<ReturnType<typeof Bun.spawn<"ignore", "pipe", "pipe">>> {
	const child = Bun.spawn([process.execPath, join(REPO_ROOT, "src/main.ts"), verb, "--json"], { cwd: root, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
	// Three job shells and a grandchild carry DISCERN_ROOT once every job runs.
	const deadline = Date.now() + 15_000;
	while ((await processesWithEnv("DISCERN_ROOT", root)).length < 4 && Date.now() < deadline) await Bun.sleep(50);
	return child;
}

async function interrupt(signal: EndingSignal, marker: string, stubborn = false) {
	const r = await hidingRepo(marker, stubborn);
	const child = await startGate(r.root);
	child.kill(signal);
	const [exitCode, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
	return { exitCode, stdout, stderr, root: r.root };
}

describe("interrupting the gate", () => {
	test("SIGINT: every job tree is killed (one ignores TERM), exit 130, the envelope says interrupted, the lock is free", async () => {
		const { exitCode, stdout, stderr, root } = await interrupt("SIGINT", `1234.${TAG}901`, true);
		expect(exitCode).toBe(130);
		expect(stderr).toBe("");
		const envelope = JSON.parse(stdout) as { ok: boolean; error: string; data: { interrupted: boolean; failed_stage: string | null } };
		expect(envelope.ok).toBe(false);
		expect(envelope.error).toBe("interrupted");
		expect(envelope.data.interrupted).toBe(true);
		expect(envelope.data.failed_stage).toBeNull();
		expect(await survivorsByCommandLine(`sleep 1234.${TAG}901`)).toEqual([]);
		expect(existsSync(join(root, ".git/discern/lock"))).toBe(false);
	});

	test("every other signal whose default would end discern does the same, with 128+n", async () => {
		const others = ENDING_SIGNALS.filter((signal) => signal !== "SIGINT");
		// Side by side: each gate runs in its own repository.
		const results = await Promise.all(others.map((signal, index) => interrupt(signal, `1234.${TAG}91${index}`)));
		for (const [index, signal] of others.entries()) {
			const result = results[index];
			expect({ signal, exitCode: result?.exitCode }).toEqual({ signal, exitCode: 128 + constants.signals[signal] });
			const envelope = JSON.parse(result?.stdout ?? "") as { ok: boolean; error: string; data: { interrupted: boolean } };
			expect({ signal, error: envelope.error }).toEqual({ signal, error: "interrupted" });
			expect(envelope.data.interrupted).toBe(true);
			expect(await survivorsByCommandLine(`sleep 1234.${TAG}91${index}`)).toEqual([]);
			expect(existsSync(join(result?.root ?? "", ".git/discern/lock"))).toBe(false);
		}
	});

	test("prepare and test: SIGINT makes them interrupted too, never gate_failed, exit 130", async () => {
		const r = await makeRepo({ config: '[jobs]\nlint = "sleep 60"\ntest = "sleep 60"\n' });
		made.push(r);
		// One after the other: both take the checkout's lock.
		for (const verb of ["prepare", "test"]) {
			const child = Bun.spawn([process.execPath, join(REPO_ROOT, "src/main.ts"), verb, "--json"], {
				cwd: r.root,
				stdin: "ignore",
				stdout: "pipe",
				stderr: "pipe",
			});
			const deadline = Date.now() + 15_000;
			while ((await processesWithEnv("DISCERN_ROOT", r.root)).length < 1 && Date.now() < deadline) await Bun.sleep(50);
			child.kill("SIGINT");
			const [exitCode, stdout] = await Promise.all([child.exited, new Response(child.stdout).text()]);
			const envelope = JSON.parse(stdout) as { verb: string; ok: boolean; error: string; data: { interrupted: boolean; failed_stage: string | null } };
			expect({ verb, exitCode, error: envelope.error, interrupted: envelope.data.interrupted, failed: envelope.data.failed_stage }).toEqual({
				verb,
				exitCode: 130,
				error: "interrupted",
				interrupted: true,
				failed: null,
			});
			expect(await survivors(r.root, 5000)).toEqual([]);
		}
	});

	test("a closed terminal: the hang-up kills every job tree, and the lock is free", async () => {
		// `script` gives discern a terminal and makes it the session's controlling process; killing `script`
		// hangs the terminal up, as closing a window does: the kernel sends SIGHUP and writes to it fail.
		const r = await hidingRepo(`1234.${TAG}93`, true);
		const command = `exec ${process.execPath} ${join(REPO_ROOT, "src/main.ts")} done`;
		const terminal = Bun.spawn(["script", "-qfec", command, "/dev/null"], {
			cwd: r.root,
			env: { ...process.env, SHELL: "/bin/sh" },
			stdin: "pipe",
			stdout: "pipe",
			stderr: "pipe",
		});
		const deadline = Date.now() + 15_000;
		while ((await processesWithEnv("DISCERN_ROOT", r.root)).length < 4 && Date.now() < deadline) await Bun.sleep(50);
		// discern is no child of ours (`script` started it): find it to wait for it.
		const discern = (await processesWithCommandLine(`${join(REPO_ROOT, "src/main.ts")} done`)).filter((pid) =>
			readFileSync(`/proc/${pid}/cmdline`, "utf8").startsWith(`${process.execPath}\0`),
		);
		expect(discern.length).toBe(1);
		terminal.kill("SIGKILL");
		await terminal.exited;
		const gone = Date.now() + 10_000;
		while (discern.some((pid) => existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z")) && Date.now() < gone)
			await Bun.sleep(50);
		expect(discern.filter((pid) => existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z"))).toEqual([]);
		expect(await survivors(r.root)).toEqual([]);
		expect(await survivorsByCommandLine(`sleep 1234.${TAG}93`)).toEqual([]);
		expect(existsSync(join(r.root, ".git/discern/lock"))).toBe(false);
	});
});
