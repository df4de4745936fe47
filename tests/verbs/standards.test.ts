import { afterEach, describe, expect, test } from "bun:test";
import { chmod, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { DoneData } from "../../src/proof/done-schema.ts";
import { tightenedLimit } from "../../src/standards/measure.ts";
import type { StandardsData } from "../../src/verbs/standards/schema.ts";
import { onlyJson, runDiscern } from "../helpers/cli.ts";
import { invokeVerb } from "../helpers/invoke.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";
import { expectValidEnvelope } from "../helpers/schema.ts";

const made: TestRepo[] = [];
afterEach(async () => {
	await Promise.all(made.splice(0).map((r) => r.remove()));
});

/** A config a person wrote: comments, alignment and blank lines that a pin must keep byte for byte. */
const CONFIG = `# The project's bar.
[jobs]
test = "true"   # fast

[standards.coverage]
run = "echo DISCERN_METRIC coverage 91.7"   # prints the metric
direction = "up"        # a floor
limit = 90              # keep this comment
margin = 0.5

# Fewer is better.
[standards.warnings]
run = "echo DISCERN_METRIC warnings 3"
direction = "down"
limit = 10
`;

async function repo(config = CONFIG, branch = "feature"): Promise<TestRepo> {
	const r = await makeRepo({ config });
	made.push(r);
	if (branch !== "main") await r.git("switch", "-q", "-c", branch);
	return r;
}

async function run(r: TestRepo, verb: "standards" | "standards pin" | "done", input: Record<string, unknown> = {}, surface: "cli" | "mcp" = "cli") {
	const result = await invokeVerb(verb, r.ctx({ surface }), input);
	expectValidEnvelope(verb, result);
	return result as typeof result & { error?: string };
}

const head = (r: TestRepo) => r.git("rev-parse", "HEAD").then((line) => line.trim());

describe("standards: measured fresh", () => {
	test("every standard by default, each against its limit, with the limit a pin would set", async () => {
		const r = await repo();
		const result = await run(r, "standards");
		expect(result.ok).toBe(true);
		expect((result.data as StandardsData).standards).toEqual([
			{ name: "coverage", verdict: "improved", value: 91.7, limit: 90, proposed: 91.2 },
			{ name: "warnings", verdict: "improved", value: 3, limit: 10, proposed: 3 },
		]);
		expect(result.hints?.join(" ")).toContain("`discern standards pin coverage warnings`");
	});

	test("names select; several words on the CLI are several names", async () => {
		const r = await repo();
		const one = await run(r, "standards", { names: ["warnings"] });
		expect((one.data as StandardsData).standards.map((reading) => reading.name)).toEqual(["warnings"]);
		const cli = await runDiscern(["standards", "warnings", "coverage", "--json"], { cwd: r.root });
		expect(cli.exitCode).toBe(0);
		expect((onlyJson(cli.stdout).data as StandardsData).standards.map((reading) => reading.name)).toEqual(["coverage", "warnings"]);
	});

	test("an unknown name suggests the closest, on each surface in its own words", async () => {
		const r = await repo();
		const cli = await run(r, "standards", { names: ["covrage"] });
		expect(cli.ok).toBe(false);
		expect(cli.error).toBe("unknown_standard");
		expect(cli.message).toContain("Did you mean `coverage`?");
		expect(cli.hints?.[0]).toBe("Did you mean `discern standards coverage`?");
		const mcp = await run(r, "standards pin", { names: ["warnigns"] }, "mcp");
		expect(mcp.hints?.[0]).toBe('Did you mean `discern_standards` with `{"names":["warnings"],"pin":true}`?');
		// `discern standards pinn`: the mistyped sub-command, not a standard's name.
		const pinn = await run(r, "standards", { names: ["pinn"] });
		expect(pinn.hints?.[0]).toBe("Did you mean `discern standards pin`?");
	});

	test("a regressed standard, a missing metric line and a metric that is not a number fail with a diagnostic each", async () => {
		const r = await repo(
			`[jobs]\ntest = "true"\n[standards.a]\nrun = "echo DISCERN_METRIC a 1"\ndirection = "up"\nlimit = 2\n[standards.b]\nrun = "echo nothing"\ndirection = "up"\nlimit = 2\n[standards.c]\nrun = "echo DISCERN_METRIC c 5; echo DISCERN_METRIC c n/a"\ndirection = "up"\nlimit = 2\n`,
		);
		const result = await run(r, "standards");
		expect(result.error).toBe("gate_failed");
		expect(result.diagnostics?.map((diagnostic) => diagnostic.message)).toEqual([
			"standard a regressed: 1 is past its floor of 2",
			"standard b could not be measured: no `DISCERN_METRIC b <number>` line in its output",
			"standard c could not be measured: its last `DISCERN_METRIC c` line carries `n/a`, which is not a number",
		]);
	});

	test("a dry run shows the measurements and runs nothing", async () => {
		const r = await repo();
		const result = await run(r, "standards", { dry_run: true });
		expect(result.dry_run).toBe(true);
		expect(result.plan?.map((item) => item.label)).toEqual(["standard:coverage", "standard:warnings"]);
		expect(result.steps).toBeUndefined();
	});

	test("a pin's new limit: measured ∓ margin, rounded to the safe side, only when stricter", () => {
		const up = { run: "x", direction: "up" as const, limit: 90, margin: 0.5 };
		expect(tightenedLimit(up, 91.7)).toBe(91.2);
		expect(tightenedLimit(up, 90.4)).toBeNull();
		expect(tightenedLimit({ ...up, margin: 0 }, 100 / 3)).toBeNull();
		expect(tightenedLimit({ ...up, limit: 30, margin: 0 }, 100 / 3)).toBe(33.3333);
		expect(tightenedLimit({ ...up, direction: "down", limit: 10, margin: 1 }, 3.21)).toBe(4.21);
	});
});

describe("standards pin", () => {
	test("commits discern.toml alone, changing only the limit lines; every comment survives", async () => {
		const r = await repo();
		const before = await head(r);
		const result = await run(r, "standards pin");
		expect(result.ok).toBe(true);
		const data = result.data as StandardsData;
		expect(data.pinned).toEqual(["coverage", "warnings"]);
		expect(data.standards.map(({ limit, proposed }) => [limit, proposed])).toEqual([
			[90, 91.2],
			[10, 3],
		]);
		expect(data.commit).toBe(await head(r));
		expect((await r.git("rev-parse", "HEAD~1")).trim()).toBe(before);
		expect(await r.git("diff", "--name-only", "HEAD~1", "HEAD")).toBe("discern.toml\n");
		expect(await readFile(join(r.root, "discern.toml"), "utf8")).toBe(CONFIG.replace("limit = 90 ", "limit = 91.2 ").replace("limit = 10\n", "limit = 3\n"));
		const changed = (await r.git("diff", "--unified=0", "HEAD~1", "HEAD")).split("\n").filter((line) => /^[-+][^-+]/.test(line));
		expect(changed).toEqual(["-limit = 90              # keep this comment", "+limit = 91.2              # keep this comment", "-limit = 10", "+limit = 3"]);
		expect(await r.git("log", "-1", "--format=%B")).toBe(
			"Pin standards: coverage 90 → 91.2, warnings 10 → 3\n\n- standards.coverage.limit: 90 → 91.2 (measured 91.7, margin 0.5)\n- standards.warnings.limit: 10 → 3 (measured 3, margin 0)\n\n",
		);
		expect(await r.git("status", "--porcelain")).toBe("");
		expect(data.proof).toBeNull();
		expect(result.hints?.join(" ")).toContain("Run `discern done` for a Proof of the new commit.");
	});

	test("the pin commit is not signed by a program the repository's own config names", async () => {
		const r = await repo();
		const marker = join(r.root, "..", `${r.root.split("/").at(-1)}-PWNED`);
		const program = join(r.root, ".git", "planted-gpg");
		await writeFile(program, `#!/bin/sh\necho gpg >> '${marker}'\nexit 1\n`, { mode: 0o755 });
		await r.git("config", "commit.gpgSign", "true");
		await r.git("config", "gpg.program", program);
		const result = await run(r, "standards pin");
		const ran = await readFile(marker, "utf8").catch(() => "never ran");
		await rm(marker, { force: true });
		expect(ran).toBe("never ran");
		expect(result.ok).toBe(true);
	});

	test("names pin only those", async () => {
		const r = await repo();
		const result = await run(r, "standards pin", { names: ["warnings"] });
		expect((result.data as StandardsData).pinned).toEqual(["warnings"]);
		expect(await readFile(join(r.root, "discern.toml"), "utf8")).toBe(CONFIG.replace("limit = 10\n", "limit = 3\n"));
	});

	test("the previous commit's Proof carries over, and done honors it without running", async () => {
		const r = await repo();
		const proven = await run(r, "done");
		expect(proven.ok).toBe(true);
		const result = await run(r, "standards pin");
		const data = result.data as StandardsData;
		expect(data.proof).toStartWith(`Proof: feature @ ${(await head(r)).slice(0, 12)} passed`);
		const again = await run(r, "done");
		expect(again.ok).toBe(true);
		expect((again.data as DoneData).gate_ran).toBe(false);
		expect((again.data as DoneData).standards).toEqual([
			{ name: "coverage", verdict: "improved", value: 91.7, limit: 91.2 },
			{ name: "warnings", verdict: "held", value: 3, limit: 3 },
		]);
	});

	test("the same over MCP: discern_standards with pin: true", async () => {
		const r = await repo();
		const result = await run(r, "standards", { pin: true, names: ["coverage"] }, "mcp");
		expect(result.ok).toBe(true);
		expect((result.data as StandardsData).pinned).toEqual(["coverage"]);
		expect(result.hints?.join(" ")).toContain("Run `discern_done` for a Proof");
	});

	test("a dry run changes nothing", async () => {
		const r = await repo();
		const before = await head(r);
		const result = await run(r, "standards pin", { dry_run: true });
		expect(result.ok).toBe(true);
		expect(result.dry_run).toBe(true);
		expect(result.plan?.map((item) => item.kind)).toEqual(["standard", "standard", "edit", "commit"]);
		expect(await head(r)).toBe(before);
		expect(await readFile(join(r.root, "discern.toml"), "utf8")).toBe(CONFIG);
	});

	test("a file only info/exclude hides is a change, as done judges it: refused, nothing committed", async () => {
		const r = await repo();
		await writeFile(join(r.root, ".git", "info", "exclude"), "conftest.py\n");
		await r.write("conftest.py", "import os\n");
		const before = await head(r);
		const refused = await run(r, "standards pin");
		expect(refused.error).toBe("dirty_worktree");
		expect(refused.message).toContain("conftest.py");
		expect(await head(r)).toBe(before);
		expect(await readFile(join(r.root, "discern.toml"), "utf8")).toBe(CONFIG);
	});

	test("refused on a dirty tree, and while a selected standard fails; nothing is written", async () => {
		const dirty = await repo();
		await dirty.write("notes.txt", "wip\n");
		const refused = await run(dirty, "standards pin");
		expect(refused.error).toBe("dirty_worktree");
		expect(refused.message).toContain("notes.txt");
		expect(await readFile(join(dirty.root, "discern.toml"), "utf8")).toBe(CONFIG);

		const failing = await repo(CONFIG.replace("limit = 10", "limit = 2"));
		const before = await head(failing);
		const red = await run(failing, "standards pin");
		expect(red.error).toBe("gate_failed");
		expect(red.message).toContain("warnings regressed");
		expect(await head(failing)).toBe(before);
		// Naming only the healthy one pins it.
		expect((await run(failing, "standards pin", { names: ["coverage"] })).ok).toBe(true);
	});

	test("a commit git refuses (a hook) is pin_failed, and discern.toml is put back", async () => {
		const r = await repo();
		const hook = join(r.root, ".git", "hooks", "pre-commit");
		await writeFile(hook, "#!/bin/sh\necho no commits today >&2\nexit 1\n");
		await chmod(hook, 0o755);
		const before = await head(r);
		const result = await run(r, "standards pin");
		expect(result.error).toBe("pin_failed");
		expect(result.message).toContain("no commits today");
		expect(await head(r)).toBe(before);
		expect(await readFile(join(r.root, "discern.toml"), "utf8")).toBe(CONFIG);
		expect(await r.git("status", "--porcelain")).toBe("");
	});

	test("nothing gained beyond the margin: nothing to pin, no commit", async () => {
		const r = await repo(CONFIG.replace("limit = 90 ", "limit = 91.5").replace("limit = 10", "limit = 3"));
		const before = await head(r);
		const result = await run(r, "standards pin");
		expect(result.ok).toBe(true);
		expect(result.message).toStartWith("Nothing to pin");
		expect(await head(r)).toBe(before);
	});
});

/** A hook in the repository's hooks folder. */
async function hook(r: TestRepo, name: string, script: string): Promise<void> {
	const path = join(r.root, ".git", "hooks", name);
	await writeFile(path, `#!/bin/sh\n${script}`);
	await chmod(path, 0o755);
}

/**
 * After a pin whose commit is not the pin: no Proof for the new HEAD, and done runs the gate again. `outsideIndex`: the file a
 * pre-commit hook added to `git commit --only`'s own index: committed, yet never in the checkout's index, which git (and so done)
 * then reads as staged for deletion, refusing as dirty before any gate.
 */
async function noProofFor(r: TestRepo, result: Awaited<ReturnType<typeof run>>, extra: string, outsideIndex?: string) {
	expect(result.ok).toBe(false);
	expect(result.error).toBe("pin_failed");
	expect(result.message).toContain(extra);
	expect(result.message).toContain("No Proof was carried over; the commit stays");
	expect(result.hints?.join(" ")).toContain("`discern done`");
	const data = result.data as StandardsData;
	expect(data.proof).toBeNull();
	expect(data.commit).toBe(await head(r));
	const status = await invokeVerb("status", r.ctx(), {});
	expect((status.data as { proof: { state: string } }).proof.state).not.toBe("honored");
	const again = await run(r, "done");
	if (outsideIndex) {
		expect(again).toMatchObject({ ok: false, error: "dirty_worktree" });
		expect(again.message).toContain(outsideIndex);
		expect(await r.git("status", "--porcelain")).toContain(`D  ${outsideIndex}`);
	} else expect((again.data as DoneData).gate_ran).toBe(true);
}

describe("a pin's commit is checked before a Proof carries to it", () => {
	test("a pre-commit hook that adds a file: pin_failed naming it, the commit kept, no Proof", async () => {
		const r = await repo();
		expect((await run(r, "done")).ok).toBe(true);
		const before = await head(r);
		await hook(r, "pre-commit", "echo smuggled > smuggled.txt\ngit add smuggled.txt\n");
		const result = await run(r, "standards pin");
		expect(await r.git("show", "--name-only", "--format=", "HEAD")).toBe("discern.toml\nsmuggled.txt\n");
		expect((await r.git("rev-parse", "HEAD~1")).trim()).toBe(before);
		await noProofFor(r, result, "holds more than the pin: smuggled.txt", "smuggled.txt");
	});

	test("a post-commit hook that amends: pin_failed, no Proof", async () => {
		const r = await repo();
		expect((await run(r, "done")).ok).toBe(true);
		await hook(
			r,
			"post-commit",
			"[ -f .git/amended ] && exit 0\ntouch .git/amended\necho later > later.txt\ngit add later.txt\ngit commit -q --amend --no-edit --no-verify\n",
		);
		const result = await run(r, "standards pin");
		expect(await r.git("show", "--name-only", "--format=", "HEAD")).toContain("later.txt");
		await noProofFor(r, result, "holds more than the pin: later.txt");
	});

	test("a gate job that plants a pre-commit hook, then a pin: no Proof for the smuggled commit", async () => {
		const planted = CONFIG.replace('test = "true"   # fast', 'test = "sh tools/plant.sh"');
		const r = await repo(planted);
		await r.write(
			"tools/plant.sh",
			"printf '#!/bin/sh\\necho planted > planted.txt\\ngit add planted.txt\\n' > .git/hooks/pre-commit\nchmod +x .git/hooks/pre-commit\n",
		);
		await r.git("add", "tools/plant.sh");
		await r.git("commit", "-q", "-m", "a job");
		expect((await run(r, "done")).ok).toBe(true);
		const result = await run(r, "standards pin");
		await noProofFor(r, result, "holds more than the pin: planted.txt", "planted.txt");
	});

	test("a clean pin says what was checked", async () => {
		const r = await repo();
		const before = await head(r);
		const result = await run(r, "standards pin");
		expect(result.message).toContain(`checked to be one commit on ${before.slice(0, 7)}, changing discern.toml alone, to the bytes the pin wrote`);
	});
});

describe("a pin on the trunk", () => {
	test("is refused: the trunk is the one done judges against, whatever discern.toml names", async () => {
		const plain = await repo(CONFIG, "main");
		const before = await head(plain);
		const refused = await run(plain, "standards pin");
		expect(refused.error).toBe("awaiting_consent");
		expect(refused.message).toContain("This is the trunk `main`");
		expect(await head(plain)).toBe(before);

		// A discern.toml that names another trunk does not make `main` a branch to pin on.
		const renamed = await repo(`[repository]\ntrunk = "develop"\n\n${CONFIG}`, "main");
		const again = await run(renamed, "standards pin");
		expect(again.error).toBe("awaiting_consent");
		expect(again.message).toContain("This branch `main` is named as the trunk by its name (discern's trunk is `develop`)");
		expect(await head(renamed)).toBe(await renamed.git("rev-parse", "main").then((line) => line.trim()));
		expect(await renamed.git("log", "--format=%s")).toBe("initial\n");
	});

	test("a branch whose discern.toml names itself the trunk is refused too: whatever names a branch the trunk, a pin does not commit there", async () => {
		const r = await repo();
		await r.write("discern.toml", `[repository]\ntrunk = "feature"\n\n${CONFIG}`);
		await r.git("commit", "-q", "-am", "this branch names itself the trunk");
		const before = await head(r);
		const result = await run(r, "standards pin");
		expect(result.error).toBe("awaiting_consent");
		expect(result.message).toContain("This branch `feature` is named as the trunk by this checkout's [repository].trunk (discern's trunk is `main`)");
		expect(await head(r)).toBe(before);
	});
});

describe("a standard named pin", () => {
	test("is refused by the config: `discern standards pin` is the sub-command", async () => {
		const { parseConfig } = await import("../../src/config/load.ts");
		const parsed = parseConfig('[standards.pin]\nrun = "x"\ndirection = "up"\nlimit = 1\n');
		expect(parsed.ok).toBe(false);
		if (!parsed.ok)
			expect(parsed.issues.map((issue) => issue.message)).toContain(
				"`pin` cannot name a standard: `discern standards pin` is the sub-command that pins; rename it",
			);
	});
});

describe("status and standards", () => {
	test("standards within their margin of the limit at the last green gate are mentioned", async () => {
		const r = await repo();
		expect((await run(r, "done")).ok).toBe(true);
		const quiet = await invokeVerb("status", r.ctx(), {});
		expect(quiet.hints ?? []).toEqual([]);
		await run(r, "standards pin");
		const status = await invokeVerb("status", r.ctx(), {});
		expect(status.hints).toEqual([
			"Close to their limit at the last green gate: coverage 91.7 (floor 91.2), warnings 3 (ceiling 3); `discern standards` measures them now.",
		]);
		const mcp = await invokeVerb("status", r.ctx({ surface: "mcp" }), {});
		expect(mcp.hints?.[0]).toEndWith("`discern_standards` measures them now.");
		await r.write("wip.txt", "x");
		expect((await invokeVerb("status", r.ctx(), {})).hints ?? []).toEqual([]);
	});
});
