import type { Stage } from "../config/schema.ts";
import { ref, type Say } from "../contract/refer.ts";
import type { PackageManager } from "../setup/detect.ts";
import { clip, clipList } from "../text/clip.ts";
import { plural } from "../text/plural.ts";
import type { Facts } from "./facts.ts";
import { CATEGORIES, type Category, type Rule, type RuleState } from "./schema.ts";

/**
 * The coach's rule catalog: deterministic, each a small pure function over
 * the gathered `Facts`, with a weight and a category. The catalog's order
 * is the tie-break when two rules would recover the same weight.
 */
export interface Verdict {
	state: RuleState;
	detail: string;
	fix?: string;
}

export interface RuleDefinition {
	id: string;
	category: Category;
	weight: number;
	evaluate: (facts: Facts, say: Say) => Verdict;
}

const CREDIT: Readonly<Record<RuleState, number>> = { pass: 1, partial: 0.5, fail: 0, skip: 0 };

/** A gate timeout beyond this is a hang waiting to happen. */
export const MAX_SANE_TIMEOUT = 3600;

/** How a fresh worktree installs its dependencies, per package manager (an example for the fix). */
const INSTALL: Readonly<Record<PackageManager, string>> = {
	npm: "npm ci",
	pnpm: "pnpm install --frozen-lockfile",
	yarn: "yarn install --frozen-lockfile",
	bun: "bun install --frozen-lockfile",
	uv: "uv sync",
	poetry: "poetry install",
	pdm: "pdm install",
	hatch: "hatch env create",
	pip: "pip install -e .",
};

const pass = (detail: string): Verdict => ({ state: "pass", detail });
const skip = (detail: string): Verdict => ({ state: "skip", detail });
const names = (items: readonly string[]) =>
	clipList(
		items.map((item) => clip(item)),
		10,
	);

/** Runnable jobs of one stage (an empty command or `:` is skipped by the gate, so it does not count). */
const jobsIn = (facts: Facts, stage: Stage) => facts.jobs.filter((job) => job.stage === stage && job.commands.length > 0);

/** `name = "command"` lines for jobs to add: setup's proposal when it has one, else a placeholder. */
function jobLines(facts: Facts, wanted: readonly string[]): string {
	return wanted
		.map((name) => {
			const proposed = facts.proposed.find((job) => job.name === name);
			return `\`${name} = ${JSON.stringify(clip(proposed?.run ?? "…"))}\``;
		})
		.join(" and ");
}

function testJob(facts: Facts): Verdict {
	const tests = jobsIn(facts, "test");
	if (tests.length > 0) return pass(names(tests.map((job) => job.name)));
	const declared = facts.jobs.filter((job) => job.stage === "test").map((job) => job.name);
	const fix = `Add ${jobLines(facts, ["test"])} under [jobs] in discern.toml.`;
	if (declared.length > 0) return { state: "partial", detail: `test-stage job ${names(declared)} has no command to run.`, fix };
	return { state: "fail", detail: "No test-stage job: the gate proves nothing about behavior.", fix };
}

function checkJobs(facts: Facts): Verdict {
	const checks = jobsIn(facts, "check");
	const declared = new Set(facts.jobs.map((job) => job.name));
	const missing = facts.proposed.filter((job) => job.stage === "check" && !declared.has(job.name)).map((job) => job.name);
	if (checks.length === 0) {
		const wanted = missing.length > 0 ? missing : ["lint", "typecheck"];
		return { state: "fail", detail: "No check-stage job (lint, typecheck).", fix: `Add ${jobLines(facts, wanted)} under [jobs] in discern.toml.` };
	}
	const have = names(checks.map((job) => job.name));
	if (missing.length > 0)
		return { state: "partial", detail: `${have}; the stack also has ${names(missing)}.`, fix: `Add ${jobLines(facts, missing)} under [jobs] in discern.toml.` };
	return pass(have);
}

function formatter(facts: Facts): Verdict {
	const fixes = jobsIn(facts, "fix");
	if (fixes.length > 0) return pass(names(fixes.map((job) => job.name)));
	return {
		state: "fail",
		detail: "No fix-stage job: formatting is left to review.",
		fix: `Add ${jobLines(facts, ["format"])} (a formatter that rewrites files) under [jobs] in discern.toml.`,
	};
}

function buildJob(facts: Facts): Verdict {
	const builds = jobsIn(facts, "build");
	if (builds.length > 0) return pass(names(builds.map((job) => job.name)));
	if (!facts.proposed.some((job) => job.name === "build")) return skip("No build step detected for this stack.");
	return { state: "fail", detail: "The stack has a build step the gate does not run.", fix: `Add ${jobLines(facts, ["build"])} under [jobs] in discern.toml.` };
}

function gateGreen(facts: Facts, say: Say): Verdict {
	const { head, proofHead, lastDone, lastRun } = facts.gate;
	if (head !== null && proofHead === head) return pass("A Proof covers HEAD.");
	if (head !== null && lastDone?.ok && lastDone.head === head) return pass("The last gate run on HEAD was green.");
	if (lastDone && !lastDone.ok && lastDone.head === head)
		return { state: "fail", detail: "The last gate run on HEAD failed.", fix: say`Fix what ${ref("done")} reports, then run it again.` };
	if (proofHead !== null || lastDone?.ok || lastRun?.ok)
		return { state: "partial", detail: "The gate passed here, but not on HEAD.", fix: say`Run ${ref("done")} on this commit.` };
	return { state: "fail", detail: "No gate run has passed in this checkout.", fix: say`Run ${ref("done")} and fix what it reports.` };
}

function gateTimeout(facts: Facts, say: Say): Verdict {
	const limit = facts.config.gate.timeout;
	const fix = say`Set a limit your slowest job fits: ${ref("config set", { key: "gate.timeout", value: "600" })}.`;
	if (limit === 0) return { state: "fail", detail: "[gate].timeout is 0: a hung job hangs the gate.", fix };
	const unbounded = facts.jobs.filter((job) => job.timeout === 0).map((job) => job.name);
	if (unbounded.length > 0)
		return { state: "partial", detail: `${names(unbounded)} run without a time limit.`, fix: "Give those jobs a `timeout` (seconds) in discern.toml." };
	if (limit > MAX_SANE_TIMEOUT) return { state: "partial", detail: `[gate].timeout is ${limit}s, over an hour per command.`, fix };
	return pass(`${limit}s per command.`);
}

function standards(facts: Facts): Verdict {
	const declared = Object.keys(facts.config.standards);
	if (declared.length > 0) return pass(names(declared));
	return {
		state: "fail",
		detail: "No [standards.*]: no measured quality can only go up.",
		fix: "Declare one in discern.toml: `[standards.NAME]` with `run` (prints `DISCERN_METRIC NAME VALUE`), `direction` and `limit`.",
	};
}

function mapTree(facts: Facts): Verdict {
	const { dir, state, regions } = facts.map;
	const where = `\`${clip(dir)}\``;
	const fix = `Under ${where}, make one folder per region of the code, each with a README.md saying what it holds.`;
	if (state === "outside")
		return { state: "fail", detail: `[map].dir ${where} is outside the repository.`, fix: "Point [map].dir at a folder inside the repository." };
	if (state === "missing") return { state: "fail", detail: `No map at ${where}.`, fix };
	if (regions.length === 0) return { state: "partial", detail: `${where} has no region folders yet.`, fix };
	const bare = regions.filter((region) => !region.readme).map((region) => region.name);
	if (bare.length > 0)
		return { state: "partial", detail: `Regions without a README.md: ${names(bare)}.`, fix: `Write a README.md in each region of ${where}.` };
	return pass(plural(regions.length, "region"));
}

function instructions(facts: Facts): Verdict {
	const { sources, agentsMd } = facts.instructions;
	const example = "`docs/agent-instructions.md`";
	if (sources.length === 0) {
		const fix = `Write the project's notes for agents (how to build, conventions) in ${example} and list it in [instructions].sources.`;
		return agentsMd
			? { state: "partial", detail: "AGENTS.md exists, but [instructions].sources lists no file it is compiled from.", fix }
			: { state: "fail", detail: "No instructions source and no AGENTS.md.", fix };
	}
	const missing = sources.filter((source) => !source.exists).map((source) => source.path);
	if (missing.length === 0) return pass(names(sources.map((source) => source.path)));
	return {
		state: missing.length < sources.length ? "partial" : "fail",
		detail: `Listed in [instructions].sources but missing: ${names(missing)}.`,
		fix: "Create those files, or correct [instructions].sources.",
	};
}

function agentsWired(facts: Facts, say: Say): Verdict {
	if (facts.agents.length === 0) {
		return {
			state: "fail",
			detail: "[project].agents is empty: no agent is briefed or wired.",
			fix: "List the agents you use in [project].agents (claude_code, codex, cursor, gemini, copilot).",
		};
	}
	const unwired = facts.agents.filter((agent) => !agent.wired);
	if (unwired.length === 0) return pass(names(facts.agents.map((agent) => agent.agent)));
	const files = unwired.map((agent) => agent.file ?? agent.agent);
	return {
		state: unwired.length < facts.agents.length ? "partial" : "fail",
		detail: `No \`discern\` MCP server in ${names(files)}.`,
		fix: say`Add a \`discern\` server to ${names(files)}; ${ref("docs", { target: "mcp" })} has each editor's snippet.`,
	};
}

function worktreeSetup(facts: Facts): Verdict {
	const { setup, resources } = facts.config.worktree;
	const declared = setup.steps.length + setup.ensure.length + Object.keys(resources).length;
	if (declared > 0) return pass(`${plural(setup.steps.length + setup.ensure.length, "setup command")}, ${plural(Object.keys(resources).length, "resource")}.`);
	if (facts.dependencies === null) return skip("Nothing to install in a fresh worktree.");
	const install = facts.dependencies.manager ? INSTALL[facts.dependencies.manager] : "…";
	return {
		state: "fail",
		detail: `${facts.dependencies.evidence} needs dependencies installed in each new worktree.`,
		fix: `Declare it under [worktree.setup], e.g. \`ensure = [${JSON.stringify(install)}]\`.`,
	};
}

function scopes(facts: Facts): Verdict {
	if (facts.workspace === null) return skip("A single package: scopes are optional.");
	const declared = Object.entries(facts.config.scopes);
	const gated = declared.filter(([, scope]) => !scope.neutral).map(([name]) => name);
	const fix = "Declare a `[scopes.NAME]` with `paths` per package, and a `gate` where one package has its own checks.";
	if (gated.length > 0) return pass(names(gated));
	const detail = `${clip(facts.workspace)} declares several packages`;
	if (declared.length > 0) return { state: "partial", detail: `${detail}, but every scope is neutral.`, fix };
	return { state: "fail", detail: `${detail}, but no [scopes.*] splits them.`, fix };
}

/** The catalog, in tie-break order. */
export const RULES: readonly RuleDefinition[] = [
	{ id: "test_job", category: "gate", weight: 20, evaluate: testJob },
	{ id: "check_jobs", category: "quality", weight: 12, evaluate: checkJobs },
	{ id: "gate_green", category: "gate", weight: 10, evaluate: gateGreen },
	{ id: "agents_wired", category: "agents", weight: 10, evaluate: agentsWired },
	{ id: "standards", category: "quality", weight: 8, evaluate: standards },
	{ id: "map_tree", category: "knowledge", weight: 8, evaluate: mapTree },
	{ id: "instructions", category: "knowledge", weight: 8, evaluate: instructions },
	{ id: "formatter", category: "quality", weight: 6, evaluate: formatter },
	{ id: "build_job", category: "gate", weight: 6, evaluate: buildJob },
	{ id: "worktree_setup", category: "isolation", weight: 6, evaluate: worktreeSetup },
	{ id: "scopes", category: "isolation", weight: 6, evaluate: scopes },
	{ id: "gate_timeout", category: "gate", weight: 4, evaluate: gateTimeout },
];

export interface Evaluated extends Rule {
	category: Category;
}

/** Every rule of the catalog (or of one category) over the facts, in catalog order; fixes are worded with the caller's `ctx.say`. */
export function evaluate(facts: Facts, say: Say, category?: Category): Evaluated[] {
	return RULES.filter((rule) => category === undefined || rule.category === category).map((rule) => {
		const verdict = rule.evaluate(facts, say);
		return {
			id: rule.id,
			category: rule.category,
			weight: rule.weight,
			state: verdict.state,
			detail: verdict.detail,
			...(verdict.fix ? { fix: verdict.fix } : {}),
		};
	});
}

/** round(100 × Σ credit × weight / Σ weight) over the rules that apply; 100 when none does. */
export function scoreOf(rules: readonly Pick<Rule, "weight" | "state">[]): number {
	const counted = rules.filter((rule) => rule.state !== "skip");
	const total = counted.reduce((sum, rule) => sum + rule.weight, 0);
	if (total === 0) return 100;
	const earned = counted.reduce((sum, rule) => sum + CREDIT[rule.state] * rule.weight, 0);
	return Math.round((100 * earned) / total);
}

/** The rule whose fix recovers the most weight (the catalog's order breaks ties), with the points it adds. */
export function nextRule(rules: readonly Evaluated[]): { rule: Evaluated; gain: number } | null {
	let best: Evaluated | null = null;
	let bestRecoverable = 0;
	for (const rule of rules) {
		if (rule.state === "skip") continue;
		const recoverable = (1 - CREDIT[rule.state]) * rule.weight;
		if (recoverable > bestRecoverable) {
			best = rule;
			bestRecoverable = recoverable;
		}
	}
	if (best === null) return null;
	const chosen = best;
	const after = scoreOf(rules.map((rule) => (rule === chosen ? { ...rule, state: "pass" as const } : rule)));
	return { rule: chosen, gain: after - scoreOf(rules) };
}

/** Categories with their own scores, weakest first (the fixed category order breaks ties). */
export function byCategory(rules: readonly Evaluated[]): { name: Category; score: number; rules: Rule[] }[] {
	return CATEGORIES.map((name) => {
		const own = rules.filter((rule) => rule.category === name);
		return { name, score: scoreOf(own), rules: own.map(({ category: _category, ...rule }) => rule) };
	})
		.filter((category) => category.rules.length > 0)
		.sort((a, b) => a.score - b.score || CATEGORIES.indexOf(a.name) - CATEGORIES.indexOf(b.name));
}
