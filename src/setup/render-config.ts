import { knownStage } from "../config/schema.ts";
import { tomlKey, tomlString } from "../edit/toml-quote.ts";
import type { DetectedStack, ProposedJob, SetupProposal } from "./detect.ts";

/**
 * The `discern.toml` that `discern setup` proposes. It is the first file a
 * person reads about discern in their repository, so every line says why it
 * is there; the values are the schema's defaults unless detection found better.
 */
export interface RenderOptions {
	projectName: string;
	trunk: string | null;
	/** Agents to brief and wire; omitted or empty leaves `agents` out (the default is none). */
	agents?: readonly string[];
	/** Why those agents, for the comment beside them (e.g. found on PATH). */
	agentsWhy?: string;
	/** Hand-written instruction files refresh compiles into AGENTS.md; omitted or empty leaves [instructions] out. */
	instructionSources?: readonly string[];
}

/** What rendering needs of a proposal (scopes are optional, for callers that build one by hand). */
export type RenderedProposal = Pick<SetupProposal, "stacks" | "jobs"> & Partial<Pick<SetupProposal, "scopes" | "installs" | "seeds">>;

export function renderConfig(proposal: RenderedProposal, options: RenderOptions): string {
	const sections = [
		header(),
		project(options.projectName, options.agents ?? [], options.agentsWhy),
		repository(options.trunk),
		jobs(proposal),
		...scopes(proposal),
		gate(),
		...worktree(proposal),
		map(),
		...instructions(options.instructionSources ?? []),
	];
	return `${sections.map((lines) => lines.join("\n")).join("\n\n")}\n`;
}

function header(): string[] {
	return [
		"# discern.toml: how discern works in this repository.",
		"# Proposed by `discern setup` from the manifests and tool configurations it found; edit it freely.",
		"# Every section, key and default is explained by `discern docs config`.",
	];
}

function project(name: string, agents: readonly string[], why: string | undefined): string[] {
	const agentRows: [string, string][] =
		agents.length > 0 ? [[`agents = [${agents.map(tomlString).join(", ")}]`, `the coding agents this project works with${why ? ` (${why})` : ""}`]] : [];
	if (name.trim() === "") {
		return ["[project]", '# name = "…"  # display name; derived from the folder when absent', ...(agentRows.length > 0 ? aligned(agentRows) : [])];
	}
	return ["[project]", ...aligned([[`name = ${tomlString(name)}`, "display name"], ...agentRows])];
}

function repository(trunk: string | null): string[] {
	// The schema refuses an empty trunk, so "" is treated as unknown.
	if (trunk === null || trunk === "") {
		return ["[repository]", '# trunk = "main"  # not detected: name the branch work lands on (env DISCERN_TRUNK overrides)'];
	}
	return ["[repository]", ...aligned([[`trunk = ${tomlString(trunk)}`, "the branch work lands on; env DISCERN_TRUNK overrides"]])];
}

function jobs(proposal: RenderedProposal): string[] {
	const lines = ["[jobs]", `# ${commentText(detectedSentence(proposal.stacks))}`];
	if (proposal.jobs.length === 0) {
		return [
			...lines,
			"# No command was found, so the gate has nothing to run yet. Add one line per check;",
			"# a known name sets the stage (format: fix, build: build, lint and typecheck: check, test: test), e.g.",
			'# test = "…"',
		];
	}
	lines.push("# A known name sets the stage: format runs first (fix), then build, then lint and typecheck (check), then test.");
	if (proposal.jobs.some((job) => knownStage(job.name) === undefined)) {
		lines.push("# A second stack's jobs carry its kind (test_python), a project in a folder its folder's name (test_api).");
	}
	return [...lines, ...aligned(proposal.jobs.map((job) => [jobLine(job), job.reason]))];
}

/** One table per scope; a blank line between them, like the rest of the file. */
function scopes(proposal: RenderedProposal): string[][] {
	const scopes = proposal.scopes ?? [];
	if (scopes.length === 0) return [];
	return scopes.map((scope, index) => [
		...(index === 0
			? [
					"# Scopes: regions of the repository. `discern impact` names the ones a change touches;",
					"# a scope's gate runs in `done` only when the scope changed.",
				]
			: []),
		`[scopes.${tomlKey(scope.name)}]  # ${commentText(scope.reason)}`,
		`paths = [${scope.paths.map(tomlString).join(", ")}]`,
		...(scope.gate ? [`gate = ${tomlString(scope.gate)}`] : []),
	]);
}

function detectedSentence(stacks: readonly DetectedStack[]): string {
	if (stacks.length === 0)
		return "Detected: no known stack (looked for package.json, Cargo.toml, go.mod, go.work, pyproject.toml, setup.cfg, setup.py, requirements.txt, Makefile).";
	const described = stacks.map((stack) => `${stack.kind} (${[stack.evidence, stack.manager].filter(Boolean).join(", ")})`);
	return `Detected: ${described.join("; ")}.`;
}

/** A scope on one line, its table and keys together: how `setup verify` lists one the config lacks. */
export function scopeLine(scope: { name: string; paths: readonly string[]; gate?: string | undefined }): string {
	return `[scopes.${tomlKey(scope.name)}] paths = [${scope.paths.map(tomlString).join(", ")}]${scope.gate ? `, gate = ${tomlString(scope.gate)}` : ""}`;
}

/** `name = value`, as the job is written in discern.toml. */
export function jobLine(job: Pick<ProposedJob, "name" | "stage" | "run">): string {
	return `${tomlKey(job.name)} = ${jobValue(job)}`;
}

/** A plain string when the name already implies the stage; otherwise a table that states it, so the file stays valid. */
function jobValue(job: Pick<ProposedJob, "name" | "stage" | "run">): string {
	if (knownStage(job.name) === job.stage) return tomlString(job.run);
	return `{ run = ${tomlString(job.run)}, stage = ${tomlString(job.stage)} }`;
}

function gate(): string[] {
	return [
		"[gate]",
		...aligned([
			["fail_fast = true", "a failing job cancels its running siblings"],
			["timeout = 600", "seconds per command; 0 = unbounded; a job's own `timeout` overrides"],
		]),
	];
}

/**
 * What a new worktree needs before its jobs can start: a fresh checkout has
 * no dependencies. A TOML array may span lines, so each entry carries its
 * own reason.
 */
function worktree(proposal: RenderedProposal): string[][] {
	const installs = proposal.installs ?? [];
	const seeds = proposal.seeds ?? [];
	const sections: string[][] = [];
	if (seeds.length > 0) {
		sections.push([
			"[worktree]",
			"# Build caches of the main checkout (ignored by git) that `discern start` copies into a new worktree",
			"# before its setup runs (copy-on-write where the filesystem can), so the first job starts warm.",
			...listed(
				"seed",
				seeds.map((seed) => [seed.path, seed.reason]),
			),
		]);
	}
	if (installs.length > 0) {
		sections.push([
			"[worktree.setup]",
			"# A new worktree has no dependencies: `discern start` runs these in it, and `discern update` again after the trunk came in.",
			...listed(
				"ensure",
				installs.map((install) => [install.run, install.reason]),
			),
		]);
	}
	return sections;
}

/** `key = ["one"]  # why` for one value; one value per line, each with its reason, for several. */
function listed(key: string, entries: ReadonlyArray<readonly [string, string]>): string[] {
	const [only] = entries;
	if (entries.length === 1 && only) return aligned([[`${key} = [${tomlString(only[0])}]`, only[1]]]);
	return [`${key} = [`, ...aligned(entries.map(([value, why]) => [`\t${tomlString(value)},`, why])), "]"];
}

function map(): string[] {
	return ["[map]", ...aligned([['dir = "docs/map/"', "the agent-maintained map of this repository"]])];
}

function instructions(sources: readonly string[]): string[][] {
	if (sources.length === 0) return [];
	return [
		[
			"[instructions]",
			"# Your own instructions for agents: `discern refresh` compiles them into AGENTS.md after discern's briefing.",
			`sources = [${sources.map(tomlString).join(", ")}]`,
		],
	];
}

/** `key = value  # comment` lines with their comments in one column, capped so one long command does not push the rest far right. */
function aligned(rows: ReadonlyArray<readonly [string, string]>): string[] {
	const width = Math.min(48, Math.max(...rows.map(([code]) => code.length)));
	return rows.map(([code, comment]) => `${code.padEnd(width)}  # ${commentText(comment)}`);
}

/** TOML comments may not hold control characters (a newline would end the comment and corrupt the file). */
function commentText(text: string): string {
	return text.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
}
