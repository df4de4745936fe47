/**
 * Performance budgets (SPEC §13), measured against baselines in the same run.
 *   bun scripts/bench.ts [--runs N] [--warmups N] [--build] [--json] [--strict] [--only TEXT] [--against BINARY]
 * (--only: just the benchmarks whose name contains TEXT; --against: also the start-up rows with another
 * build of discern as their baseline, e.g. the trunk's, to show a change made start-up no slower)
 *
 * The machines are noisy, so every figure is a median over repeated runs,
 * candidate and baseline interleaved run by run, and budgets that can be
 * relative are ratios. A FAIL exits 0 unless --strict: a bench is evidence
 * for a note, not a gate that flickers with the neighbours' load.
 *
 * A new benchmark is one more entry in BENCHMARKS: a candidate probe, an
 * optional baseline probe whose phases pair by name, and its budgets.
 * Large fixtures (the scale section's repository of 50 000 files, impact's
 * 50 000 untracked paths, the npm projects) are made on first use, so
 * `--only` skips their cost with their benchmarks.
 */
import { existsSync, rmSync } from "node:fs";
import { mkdir, mkdtemp } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type Crowd, idleCrowd, withCrowd } from "./bench/crowd.ts";
import {
	bunProofFloor,
	type GateFixtures,
	gateRun,
	lefthookBinary,
	lefthookPreflight,
	lefthookRun,
	makeGateFixtures,
	NOISY_BYTES,
	proofReadsScript,
	shellRun,
} from "./bench/gate.ts";
import { checkGlobFixture, type GlobFixtures, makeGlobFixtures } from "./bench/globs.ts";
import { type Benchmark, measure, WHOLE } from "./bench/measure.ts";
import { mcpGateCall, mcpSession, timeToExit, timeToExitIn, timeToFirstOutput, toolsListSize } from "./bench/probes.ts";
import { judge, type Outcome, renderJson, renderTable } from "./bench/report.ts";
import {
	gitHashAll,
	gitLanding,
	gitStatus,
	gitWorktreeAdd,
	LOOK,
	lookFloor,
	type Scale,
	scaleAccept,
	scaleEditedDone,
	scaleFirstDone,
	scaleFixture,
	scaleProvenDone,
	scaleStart,
	scaleStatus,
} from "./bench/scale.ts";
import { type NpmFixtures, npmFixtures, startPrepareRun } from "./bench/seed.ts";
import { buildDiscern, buildHello, makeFixture } from "./bench/setup.ts";

const ROOT = join(import.meta.dir, "..");
const DISCERN = join(ROOT, "dist/discern");

/** What every benchmark may run against; all of it lives in one temp dir removed at the end. */
interface BenchContext {
	discern: string;
	hello: string;
	git: string;
	/** lefthook's Go binary, from the dev dependency. */
	lefthook: string;
	/** A small committed repository with `discern.toml`. */
	fixture: string;
	gate: GateFixtures;
	globs: GlobFixtures;
	/** A folder for baseline output files. */
	scratch: string;
	/** Idle unrelated processes, started by the benchmarks that want them. */
	crowd: Crowd;
	/** Another build of discern (--against), the baseline of the start-up comparisons. */
	against?: string;
	/** Two npm projects with node_modules installed, made on first use (the registry is asked then). */
	npm: () => Promise<NpmFixtures>;
	/** The scale section's repository of 50 000 files (~200 MB), made on first use. */
	scale: () => Promise<Scale>;
}

/**
 * What discern's own work may add to a gate beyond the least a Bun gate that proves the tree can do (ms, medians
 * of the same rounds): its configuration, scheduling, hashing, verdict, Proof and logbook. Measured on 2 shared
 * cores on 2026-12-01, over five runs: 22–37 ms from the CLI, 18–29 ms over MCP (benchmarks of the same binary
 * differ by up to 8 ms from one another). A guard against regressions, and a ratchet: lower it as that work gets
 * cheaper.
 */
const GATE_WORK_MS = { cli: 40, mcp: 40 } as const;

/** How much slower than the build it is compared with (--against) start-up may get: more than the noise of 2 shared cores. */
const AGAINST_RATIO = 1.1;

/** Start-up, candidate and reference build in the same rounds: what a change to the code's shape must not make slower. */
const AGAINST_BENCHMARKS: readonly ((ctx: BenchContext, against: string) => Benchmark)[] = [
	(ctx, against) => ({
		name: "against: discern --version",
		candidate: timeToExit("discern --version", [ctx.discern, "--version"]),
		baseline: timeToExit("the other build's --version", [against, "--version"]),
		budgets: [{ phase: WHOLE, kind: "ratio", max: AGAINST_RATIO }],
	}),
	(ctx, against) => ({
		name: "against: discern status --json",
		candidate: timeToExit("discern status --json", [ctx.discern, "status", "--json", "-C", ctx.fixture]),
		baseline: timeToExit("the other build's status --json", [against, "status", "--json", "-C", ctx.fixture]),
		budgets: [{ phase: WHOLE, kind: "ratio", max: AGAINST_RATIO }],
	}),
	(ctx, against) => ({
		name: "against: mcp",
		candidate: mcpSession("discern mcp", [ctx.discern, "mcp"], { cwd: ctx.fixture }),
		baseline: mcpSession("the other build's mcp", [against, "mcp"], { cwd: ctx.fixture }),
		budgets: [{ phase: "initialize", kind: "ratio", max: AGAINST_RATIO }],
		notes: { "tools/list": "information", exit: "information" },
	}),
];

const BENCHMARKS: readonly ((ctx: BenchContext) => Benchmark)[] = [
	(ctx) => ({
		name: "discern --version",
		candidate: timeToExit("discern --version", [ctx.discern, "--version"]),
		baseline: timeToExit("compiled hello-world", [ctx.hello]),
		budgets: [{ phase: WHOLE, kind: "ratio", max: 3 }],
	}),
	(ctx) => ({
		name: "discern status --json",
		candidate: timeToExit("discern status --json", [ctx.discern, "status", "--json", "-C", ctx.fixture]),
		// Status is a few git calls; git status alone shows how much is discern's own (ratio for information).
		baseline: timeToExit("git status", [ctx.git, "status"], { cwd: ctx.fixture }),
		budgets: [{ phase: WHOLE, kind: "absolute", max: 25 }],
	}),
	(ctx) => ({
		// SPEC §13 sets 25 ms assuming a ~4 ms compiled hello-world; where process starts are
		// slower (here a hello-world takes ~18 ms), the same budget as a ratio is 25 / 4.
		name: "discern status --json (relative)",
		candidate: timeToExit("discern status --json", [ctx.discern, "status", "--json", "-C", ctx.fixture]),
		baseline: timeToExit("compiled hello-world", [ctx.hello]),
		budgets: [{ phase: WHOLE, kind: "ratio", max: 25 / 4 }],
	}),
	(ctx) => ({
		name: "mcp",
		candidate: mcpSession("discern mcp", [ctx.discern, "mcp"], { cwd: ctx.fixture }),
		// The floor under any answer: a compiled binary's time from spawn to its first byte on stdout.
		baseline: timeToFirstOutput("hello-world, spawn to first output", [ctx.hello], "initialize"),
		budgets: [
			{ phase: "initialize", kind: "absolute", max: 150 },
			{ phase: "tools/list", kind: "absolute", max: 10 },
		],
		notes: { exit: "after stdin closes; information" },
	}),
	(ctx) => ({
		// SPEC §10: what an agent loads before its first call stays lean (no `$ref`, per-verb error enums).
		// The budget was 25 000 bytes for the first seven tools; it holds per tool as the tool count grows
		// (each tool's outputSchema is its full envelope: without `$ref` the shared parts repeat).
		name: "mcp tools/list size",
		candidate: toolsListSize("discern mcp: tools/list result", [ctx.discern, "mcp"], { cwd: ctx.fixture }),
		budgets: [{ phase: "bytes per tool", kind: "absolute", max: 3_600 }],
		unit: "bytes",
		// The same bytes every run.
		maxRuns: 1,
	}),
	(ctx) => ({
		name: "done: 4 parallel `sleep 1` jobs",
		candidate: gateRun("discern done", ctx.discern, ctx.gate.sleeps),
		// The floor: one `sleep 1` (the four run in parallel).
		baseline: shellRun("sleep 1", "sleep 1"),
		budgets: [{ phase: WHOLE, kind: "absolute", max: 1150 }],
		maxRuns: 10,
	}),
	(ctx) => ({
		// SPEC §13: the gate's overhead over the bare shell floor stays below lefthook's on the same four commands,
		// all three measured in the same rounds; each side's overhead is its time minus the floor's of the same round.
		name: "done vs lefthook: 4 parallel `sleep 1`",
		candidate: gateRun("discern done", ctx.discern, ctx.gate.sleeps),
		baseline: lefthookRun("lefthook run (4 parallel jobs)", ctx.lefthook, ctx.gate.lefthook),
		floor: shellRun("sleep 1 & ×4; wait", "sleep 1 & sleep 1 & sleep 1 & sleep 1 & wait"),
		budgets: [{ phase: WHOLE, kind: "overhead", max: 1 }],
		maxRuns: 30,
	}),
	(ctx) => ({
		// The same comparison where agents call the gate: over MCP, to a server already running.
		name: "done over MCP vs lefthook: 4 parallel `sleep 1`",
		candidate: mcpGateCall("discern_done (server running)", ctx.discern, ctx.gate.sleeps),
		baseline: lefthookRun("lefthook run (4 parallel jobs)", ctx.lefthook, ctx.gate.lefthook),
		floor: shellRun("sleep 1 & ×4; wait", "sleep 1 & sleep 1 & sleep 1 & sleep 1 & wait"),
		budgets: [{ phase: WHOLE, kind: "overhead", max: 1 }],
		maxRuns: 30,
	}),
	(ctx) => ({
		// Why the two rows above fail: discern's runtime starting and exiting, plus the git
		// reads a Proof cannot do without, by the cheapest orchestrator there is (sh), already cost about what lefthook's
		// whole run does. lefthook reads no tree; any gate that vouches for one, written for Bun, starts here.
		name: "the least a Bun gate that proves the tree can do, vs lefthook",
		candidate: bunProofFloor("hello-world, then the Proof's git reads by sh", ctx.hello, ctx.gate.sleeps, ctx.scratch),
		baseline: lefthookRun("lefthook run (4 parallel jobs)", ctx.lefthook, ctx.gate.lefthook),
		floor: shellRun("sleep 1 & ×4; wait", "sleep 1 & sleep 1 & sleep 1 & sleep 1 & wait"),
		budgets: [],
		notes: { [WHOLE]: "information: the floor under a Bun gate that proves the tree" },
		maxRuns: 15,
	}),
	(ctx) => ({
		// The budget that can hold: what discern adds on top of that least, measured in the same rounds. It ratchets:
		// lower it when the gate gets cheaper.
		name: "done vs the least a Bun gate that proves the tree can do",
		candidate: gateRun("discern done", ctx.discern, ctx.gate.sleeps),
		baseline: bunProofFloor("hello-world, then the Proof's git reads by sh", ctx.hello, ctx.gate.sleeps, ctx.scratch),
		budgets: [{ phase: WHOLE, kind: "difference", max: GATE_WORK_MS.cli }],
		maxRuns: 30,
	}),
	(ctx) => ({
		// Over MCP the server is already running: what the first call adds to the git reads alone.
		name: "done over MCP vs the Proof's git reads by sh",
		candidate: mcpGateCall("discern_done (server running)", ctx.discern, ctx.gate.sleeps),
		baseline: shellRun("sh: evidence reads + 4 `sleep 1` + drift reads", proofReadsScript(ctx.gate.sleeps, ctx.scratch)),
		budgets: [{ phase: WHOLE, kind: "difference", max: GATE_WORK_MS.mcp }],
		maxRuns: 30,
	}),
	(ctx) => ({
		// The gate must not slow down with the machine's process count: the same run with and without the crowd.
		name: "done: 4 parallel `sleep 1` jobs, 3 000 idle processes on the machine",
		candidate: withCrowd(ctx.crowd, true, gateRun("discern done", ctx.discern, ctx.gate.sleeps)),
		baseline: withCrowd(ctx.crowd, false, gateRun("discern done", ctx.discern, ctx.gate.sleeps)),
		budgets: [{ phase: WHOLE, kind: "difference", max: 5 }],
		maxRuns: 15,
	}),
	(ctx) => ({
		name: "done: a job printing 200 MB",
		candidate: gateRun("discern done", ctx.discern, ctx.gate.noisy),
		// The same pipeline into a file: the output has to land somewhere, so the disk's cost is the baseline's too.
		baseline: shellRun("the same pipeline into a file", `head -c ${NOISY_BYTES} /dev/zero | tr '\\0' x > ${join(ctx.scratch, "baseline.log")}`),
		// Throughput is what matters: the job writes straight to its log file, so discern adds little.
		budgets: [{ phase: WHOLE, kind: "ratio", max: 1.5 }],
		maxRuns: 5,
	}),
	(ctx) => ({
		name: "done: peak memory with 200 MB of output",
		candidate: gateRun("discern done", ctx.discern, ctx.gate.noisy, "rss"),
		budgets: [{ phase: "rss", kind: "absolute", max: 100 }],
		unit: "MB",
		maxRuns: 3,
	}),
	(ctx) => ({
		// Runs of the probes above are kept too (five runs at most); the budget is the runs folder's (RUNS_BUDGET_BYTES).
		name: "done: disk under .git/discern after 200 MB of output",
		candidate: gateRun("discern done", ctx.discern, ctx.gate.noisy, "disk"),
		budgets: [{ phase: "disk", kind: "absolute", max: 64 }],
		unit: "MB",
		maxRuns: 6,
	}),
	(ctx) => ({
		// Issue 22: a worktree that starts warm. The same npm project, its main checkout installed; the first
		// `start` + `prepare` with node_modules seeded (then `npm install`) against installing it anew (`npm ci`).
		name: "start + first prepare, npm project: seeded vs install only",
		candidate: startPrepareRun("seed = [node_modules], npm install", ctx.discern, async () => (await ctx.npm()).seeded, true),
		baseline: startPrepareRun("npm ci", ctx.discern, async () => (await ctx.npm()).installOnly, false),
		budgets: [{ phase: WHOLE, kind: "ratio", max: 1 }],
		notes: { start: "information: worktree, seed, install", prepare: "information" },
		maxRuns: 5,
	}),
	(ctx) => ({
		name: "impact: 50 000 changed paths × 20 scopes",
		candidate: timeToExitIn("discern impact --json", [ctx.discern, "impact", "--json"], ctx.gate.impact),
		baseline: timeToExitIn("git status", [ctx.git, "status", "--porcelain"], ctx.gate.impact),
		budgets: [{ phase: WHOLE, kind: "absolute", max: 1000 }],
		maxRuns: 10,
	}),
	(ctx) => ({
		name: "impact: 16 consecutive **/ on a 20-deep path",
		candidate: timeToExit("discern impact --json", [ctx.discern, "impact", "--json"], { cwd: ctx.globs.pathological }),
		// The same repository and changes with `**/target.txt`: the ratio is what the pattern itself costs.
		baseline: timeToExit("the same with **/target.txt", [ctx.discern, "impact", "--json"], { cwd: ctx.globs.plain }),
		budgets: [{ phase: WHOLE, kind: "absolute", max: 50 }],
	}),
	// The scale section (issue 23): a generated repository of 50 000 files, ~200 MB (scripts/bench/scale-fixture.ts),
	// made only when one of these is selected. Each look against git's own doing the same work, in the same rounds.
	(ctx) => ({
		name: "scale: status --json",
		candidate: scaleStatus(ctx.scale),
		baseline: gitStatus(ctx.scale),
		budgets: [{ phase: WHOLE, kind: "ratio", max: 1.5 }],
		maxRuns: 20,
	}),
	(ctx) => ({
		// No budget: where the runtime alone stands against git (a look at the tree can cost no less in Bun).
		name: "scale: the least a Bun look can do",
		candidate: lookFloor(ctx.scale),
		baseline: gitStatus(ctx.scale),
		budgets: [],
		notes: { [WHOLE]: "information: the runtime's floor" },
		maxRuns: 15,
	}),
	(ctx) => ({
		name: "scale: done on a proven unchanged tree",
		candidate: scaleProvenDone(ctx.scale),
		baseline: gitStatus(ctx.scale),
		budgets: [{ phase: WHOLE, kind: "ratio", max: 1.5 }],
		maxRuns: 15,
	}),
	(ctx) => ({
		// Nothing known: every byte is read, so git hashing every tracked file is the floor; 100 ms is the rest of the gate.
		name: "scale: first done, job `true`",
		candidate: scaleFirstDone(ctx.scale),
		baseline: gitHashAll(ctx.scale),
		budgets: [{ phase: WHOLE, kind: "difference", max: 100 }],
		maxRuns: 10,
	}),
	(ctx) => ({
		// The look grows with what changed, not with the tree: the budget is on the run without its jobs' time.
		name: "scale: done after one edited file",
		candidate: scaleEditedDone(ctx.scale),
		baseline: gitStatus(ctx.scale, [WHOLE, LOOK]),
		budgets: [{ phase: LOOK, kind: "ratio", max: 1.5 }],
		notes: { [WHOLE]: "information: with the job `true`" },
		maxRuns: 10,
	}),
	(ctx) => ({
		name: "scale: start",
		candidate: scaleStart(ctx.scale),
		baseline: gitWorktreeAdd(ctx.scale),
		budgets: [{ phase: WHOLE, kind: "ratio", max: 1.3 }],
		maxRuns: 8,
	}),
	(ctx) => ({
		// Each run first starts a worktree, lets its files settle, commits an edit there and gates it (untimed, ~60 s): few runs.
		name: "scale: accept",
		candidate: scaleAccept(ctx.scale),
		baseline: gitLanding(ctx.scale),
		budgets: [{ phase: WHOLE, kind: "ratio", max: 1.5 }],
		maxRuns: 5,
	}),
];

const USAGE = "usage: bun scripts/bench.ts [--runs N] [--warmups N] [--build] [--json] [--strict] [--only TEXT] [--against BINARY]\n";
const flags = parseFlags();

if (flags.help) {
	process.stdout.write(USAGE);
	process.exit(0);
}

const runs = count("--runs", flags.runs, 1);
const warmups = count("--warmups", flags.warmups, 0);
const log = (line: string): void => void process.stderr.write(`${line}\n`);

if (flags.build || !existsSync(DISCERN)) {
	log(flags.build ? "building dist/discern (--build)" : "dist/discern is missing: building it");
	await buildDiscern(ROOT);
}

const git = Bun.which("git");
if (!git) throw new Error("git is not on PATH");
// From the lockfile (`npm ci`): no network at bench time.
const lefthook = lefthookBinary();
if (!lefthook) throw new Error("lefthook's binary is missing: run `npm ci` (it is a dev dependency)");

const temp = await mkdtemp(join(tmpdir(), "discern-bench-"));
const crowd = idleCrowd(3000);
const cleanUp = (): void => {
	crowd.stopNow();
	rmSync(temp, { recursive: true, force: true });
};
// An interrupted run must not leave fixtures and binaries behind either.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
	process.on(signal, () => {
		cleanUp();
		process.exit(signal === "SIGINT" ? 130 : 143);
	});
}

const loadBefore = loadavg()[0] ?? 0;
let outcomes: Outcome[];
try {
	const fixtureDir = join(temp, "fixture");
	await mkdir(fixtureDir);
	const gate = await makeGateFixtures(join(temp, "gate"));
	const globs = await makeGlobFixtures(join(temp, "globs"));
	const ctx: BenchContext = {
		discern: DISCERN,
		hello: await buildHello(temp),
		git,
		lefthook,
		fixture: await makeFixture(fixtureDir),
		gate,
		globs,
		scratch: temp,
		crowd,
		npm: npmFixtures(join(temp, "npm")),
		scale: scaleFixture(join(temp, "scale"), DISCERN),
		...(flags.against === undefined ? {} : { against: flags.against }),
	};
	await preflight(ctx);
	outcomes = [];
	const against = ctx.against;
	const benchmarks = [
		...(against === undefined ? [] : AGAINST_BENCHMARKS.map((make) => () => make(ctx, against))),
		...BENCHMARKS.map((make) => () => make(ctx)),
	];
	for (const make of benchmarks) {
		const benchmark = make();
		// --only: the benchmarks whose name contains the text (while working on one budget).
		if (flags.only !== undefined && !benchmark.name.includes(flags.only)) continue;
		const benchRuns = Math.min(runs, benchmark.maxRuns ?? runs);
		log(`measuring ${benchmark.name}: ${warmups} warm-up${warmups === 1 ? "" : "s"} + ${benchRuns} runs`);
		const measurement = await measure(benchmark.name, benchmark.candidate, benchmark.baseline, { runs: benchRuns, warmups }, benchmark.floor);
		outcomes.push({ benchmark, measurement });
	}
} finally {
	await crowd.set(false);
	cleanUp();
}

const verdicts = judge(outcomes);
const header = { runs, warmups, load: [loadBefore, loadavg()[0] ?? 0] as const };
process.stdout.write(flags.json ? renderJson(header, outcomes, verdicts) : renderTable(header, outcomes, verdicts));
if (flags.strict && verdicts.some((verdict) => !verdict.pass)) process.exitCode = 1;

/**
 * Timing a fast failure would pass any budget: check once, with output,
 * that each command does what it is meant to in the fixture.
 */
async function preflight(ctx: BenchContext): Promise<void> {
	const version = await capture([ctx.discern, "--version"]);
	if (!version.startsWith("discern ")) throw new Error(`discern --version printed ${JSON.stringify(version)}`);
	const status: unknown = JSON.parse(await capture([ctx.discern, "status", "--json", "-C", ctx.fixture]));
	if (typeof status !== "object" || status === null || !("ok" in status) || status.ok !== true) {
		throw new Error(`discern status --json did not succeed in the fixture: ${JSON.stringify(status)}`);
	}
	if ((await capture([ctx.hello])) !== "hello\n") throw new Error("the hello-world baseline does not print hello");
	if (ctx.against !== undefined && !(await capture([ctx.against, "--version"])).startsWith("discern "))
		throw new Error(`${ctx.against} is not a discern binary`);
	for (const repo of [ctx.globs.pathological, ctx.globs.plain]) await checkGlobFixture(ctx.discern, repo);
	await lefthookPreflight(ctx.lefthook, ctx.gate.lefthook);
}

async function capture(cmd: readonly string[]): Promise<string> {
	const proc = Bun.spawn([...cmd], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
	const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
	if (code !== 0) throw new Error(`\`${cmd.join(" ")}\` exited with ${code}: ${stderr.trim()}`);
	return stdout;
}

function parseFlags() {
	try {
		return parseArgs({
			args: process.argv.slice(2),
			options: {
				runs: { type: "string", default: "30" },
				warmups: { type: "string", default: "3" },
				build: { type: "boolean", default: false },
				json: { type: "boolean", default: false },
				strict: { type: "boolean", default: false },
				only: { type: "string" },
				against: { type: "string" },
				help: { type: "boolean", short: "h", default: false },
			},
			strict: true,
			allowPositionals: false,
		}).values;
	} catch (error) {
		process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
		process.exit(2);
	}
}

function count(flag: string, text: string, min: number): number {
	const parsed = Number(text);
	if (!Number.isInteger(parsed) || parsed < min) {
		process.stderr.write(`${flag} takes a whole number ≥ ${min}, not ${JSON.stringify(text)}\n`);
		process.exit(2);
	}
	return parsed;
}
