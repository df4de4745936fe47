import { basename, join } from "node:path";
import type * as v from "valibot";
import { asVerb, fail, ok, type PlanItem, type Refusal, type Result } from "../../contract/envelope.ts";
import type { VerbContext } from "../../contract/context.ts";
import { resolveJobs } from "../../config/jobs.ts";
import { CONFIG_FILE, type ConfigIssue, loadConfig } from "../../config/load.ts";
import { AGENTS, type DiscernConfig } from "../../config/schema.ts";
import { clip } from "../../text/clip.ts";
import { nearest } from "../../text/suggest.ts";
import { resolveTrunk } from "../../git/trunk.ts";
import type { RunningBinary } from "../../agents/command.ts";
import { detectAgents, PROVIDERS } from "../../agents/providers.ts";
import { findExecutable } from "../../platform/process.ts";
import { applyFolds, type Fold, planFolds } from "../../setup/instructions.ts";
import { refresh } from "../refresh/refresh.ts";
import { exists, resolveInside, writeFileAtomic, WriteDeniedError } from "../../platform/files.ts";
import { openRepository } from "../../project/open.ts";
import { detectStack } from "../../setup/detect.ts";
import { checkCommand } from "../../setup/programs.ts";
import { jobLine, renderConfig, tomlKey, tomlString } from "../../setup/render-config.ts";
import { openMapFolder } from "../map/tree.ts";
import { MAP_README, MAP_README_PATH } from "./map-skeleton.ts";
import type { SetupData, SetupInput, SetupVerifyInput } from "./schema.ts";
import { ref, sayFor } from "../../hints/refer.ts";

/**
 * `setup verify`: writes nothing. Without discern.toml, the proposal. With
 * one: it must be valid (`invalid_config`), every program its jobs and scope
 * gates start must be here (`checks_failed`), and what setup would propose
 * that it lacks is listed as advice. So it can run in CI.
 */
export async function verifySetup(ctx: VerbContext, input: v.InferOutput<typeof SetupVerifyInput>): Promise<Result<"setup verify", SetupData>> {
	const say = sayFor(ctx.surface);
	const proposed = await propose(ctx, input.agents);
	if (!proposed.ok) return asVerb("setup verify", proposed.refusal);
	const { data, found, root } = proposed;
	// Unadopted is a problem for a check that runs in CI: it fails, with the proposal in `data`.
	if (!data.config_exists) return fail("setup verify", "no_project", `Not set up yet: there is no ${CONFIG_FILE}. ${found}`, [say`Run ${ref("setup", { confirmed: true, ...(input.agents ? { agents: input.agents } : {}) })} to write discern.toml.`], { data });
	const load = await loadConfig(root, ctx.narrate);
	if (load.state !== "valid") {
		const issues = load.state === "invalid" ? load.issues : [{ message: `${CONFIG_FILE} could not be read` }];
		const verified = { ...data, verify: { config: "invalid" as const, issues: issues.map(({ message, line, col }) => ({ message, ...(line !== undefined ? { line } : {}), ...(col !== undefined ? { col } : {}) })), programs: [], also_proposed: [] } };
		const count = issues.length === 1 ? "1 problem" : `${issues.length} problems`;
		return fail("setup verify", "invalid_config", sentence(`${CONFIG_FILE} is invalid (${count}): ${issues.map(issueText).slice(0, 3).join("; ")}${issues.length > 3 ? "; …" : ""}`), [
			say`Fix ${CONFIG_FILE}, then run ${ref("config validate")} to see every problem with its line.`,
		], { data: verified });
	}
	const config = load.config;
	const commands = [
		...resolveJobs(config).flatMap((job) => job.commands.map((command) => ({ owner: job.name, command }))),
		...Object.entries(config.scopes).flatMap(([name, scope]) => (scope.gate ? [{ owner: `scopes.${name}`, command: scope.gate }] : [])),
	];
	const programs = (await Promise.all(commands.map(({ owner, command }) => checkCommand(root, owner, command, ctx.env)))).flat();
	const alsoProposed = missingFromConfig(data, config);
	const verified: SetupData = { ...data, verify: { config: "valid", issues: [], programs, also_proposed: alsoProposed } };
	const missing = programs.filter((check) => !check.found);
	if (missing.length > 0) {
		const named = missing.map((check) => `\`${check.program}\` (${check.owner})`);
		return fail("setup verify", "checks_failed", `${missing.length === 1 ? "A program the gate needs is" : `${missing.length} programs the gate needs are`} missing: ${named.slice(0, 5).join(", ")}${named.length > 5 ? ", …" : ""}.`, [
			"Install the missing tools (or the project's dependencies), or change the commands in discern.toml.",
		], { data: verified });
	}
	const advice = alsoProposed.length > 0 ? ` Setup would also propose ${alsoProposed.length === 1 ? "one more entry" : `${alsoProposed.length} more entries`}.` : "";
	return ok("setup verify", `discern is set up here: ${CONFIG_FILE} is valid and every program its gate starts is here (${programs.length} checked).${advice}`, verified);
}

/** Ends with one full stop, not a second one after `?` or `.`. */
function sentence(text: string): string {
	return /[.?!]$/.test(text) ? text : `${text}.`;
}

function issueText(issue: ConfigIssue): string {
	return issue.line !== undefined ? `line ${issue.line}: ${issue.message}` : issue.message;
}

/** Proposed jobs and scopes the config has neither by name nor by command (or paths). */
function missingFromConfig(data: SetupData, config: DiscernConfig): NonNullable<SetupData["verify"]>["also_proposed"] {
	const commands = new Set(resolveJobs(config).flatMap((job) => job.commands.map(normalizeCommand)));
	const jobs = data.jobs
		.filter((job) => !Object.hasOwn(config.jobs, job.name) && !commands.has(normalizeCommand(job.run)))
		.map((job) => ({ kind: "job" as const, name: job.name, line: jobLine(job), reason: job.reason }));
	const paths = new Set(Object.values(config.scopes).map((scope) => scope.paths.join("\n")));
	const scopes = data.scopes
		.filter((scope) => !Object.hasOwn(config.scopes, scope.name) && !paths.has(scope.paths.join("\n")))
		.map((scope) => ({ kind: "scope" as const, name: scope.name, line: `[scopes.${tomlKey(scope.name)}] paths = [${scope.paths.map(tomlString).join(", ")}]${scope.gate ? `, gate = ${tomlString(scope.gate)}` : ""}`, reason: scope.reason }));
	return [...jobs, ...scopes];
}

function normalizeCommand(command: string): string {
	return command.trim().replace(/\s+/g, " ");
}

/**
 * Adopt discern: detect the stack, propose jobs, and only with `--confirmed`
 * write what is missing: discern.toml and the map skeleton. Never overwrites
 * either; with discern.toml already there, it writes only the map skeleton.
 */
export async function setup(ctx: VerbContext, input: v.InferOutput<typeof SetupInput>, running?: RunningBinary): Promise<Result<"setup", SetupData>> {
	const say = sayFor(ctx.surface);
	const confirmed = ref("setup", { confirmed: true });
	const proposed = await propose(ctx, input.agents);
	if (!proposed.ok) return asVerb("setup", proposed.refusal);
	const { data, found, root, configText, folds } = proposed;
	const creating = data.files.filter((file) => file.action === "create").map((file) => file.path);
	const kept = data.config_exists ? ` ${CONFIG_FILE} exists and is left alone.` : "";
	if (creating.length === 0) {
		const present = data.files.map((file) => file.path);
		const notes = data.files.flatMap((file) => (file.reason ? [` ${file.reason}`] : [])).join("");
		return ok("setup", `Nothing to write: ${present.join(" and ")} ${present.length === 1 ? "exists" : "exist"}.${notes}`, data, {
			hints: [say`Run ${ref("setup verify")} to check the configuration and compare it with what setup would propose.`],
		});
	}
	const plan: PlanItem[] = data.files.map((file) => ({
		kind: file.action === "move" || file.action === "remove" ? file.action : "write",
		label: file.action === "move" ? `${file.from} → ${file.path}` : file.path,
		disposition: file.action === "keep" ? "skip" : "run",
		...(file.reason ? { note: file.reason } : file.action === "keep" ? { note: "exists; left alone" } : {}),
	}));
	if (!input.confirmed || input.dry_run) {
		const preview = ok("setup", `Would write ${data.config_exists ? creating.join(" and ") : CONFIG_FILE}.${kept} ${found}`, data, {
			dry_run: true,
			plan,
			hints: [say`Review the proposal, then run ${confirmed} to write it.`],
		});
		// On an interactive terminal a yes is the consent --confirmed gives; anywhere else, the preview is the answer.
		if (input.dry_run || !ctx.confirm) return preview;
		if (!(await ctx.confirm(`Write ${creating.join(" and ")}?`, preview))) {
			return ok("setup", `Nothing written. ${found}`, data, { dry_run: true, plan, hints: [say`Run ${confirmed} when you want it written.`] });
		}
	}
	try {
		// Check every target first, so a refusal leaves nothing half-written.
		await Promise.all([...creating, ...folds.filter((fold) => fold.action === "move").map((fold) => fold.to)].map((path) => resolveInside(root, path)));
		// discern.toml last: it is what marks the repository as set up.
		if (proposed.mapPath !== null && creating.includes(proposed.mapPath)) await writeFileAtomic(root, proposed.mapPath, MAP_README);
		// The person's own instruction files move before refresh generates those paths.
		await applyFolds(root, folds);
		if (creating.includes(CONFIG_FILE)) await writeFileAtomic(root, CONFIG_FILE, configText);
	} catch (error) {
		if (error instanceof WriteDeniedError) {
			return fail("setup", "write_denied", error.message, ["Move what is in the way (a symlink or a file where a folder belongs), or write discern.toml by hand."], { data });
		}
		throw error;
	}
	const privateNotes = data.files.filter((file) => file.action === "keep" && file.reason).map((file) => ` ${file.reason}`);
	const wrote = `Wrote ${creating.join(" and ")}.${kept}${describeFolds(folds)}${privateNotes.join("")}`;
	const review = data.config_exists
		? say`Run ${ref("setup verify")} to check discern.toml and compare it with what setup would propose.`
		: say`Review discern.toml, commit it, then run ${ref("doctor")}.`;
	if (!running || proposed.agents.length === 0 || data.config_exists) return ok("setup", `${wrote} ${found}`, { ...data, written: true }, { hints: [review] });
	// With agents: wire them now, as `refresh` does (it also tells which command agents start and why).
	const wired = await refresh(ctx, {}, running);
	if (!wired.ok) return ok("setup", `${wrote} ${found} The agents are not wired yet: ${wired.message}`, { ...data, written: true }, { hints: [...wired.hints, review] });
	return ok("setup", `${wrote} ${wired.message} ${found}`, { ...data, written: true }, { hints: [...(wired.hints ?? []), say`Review discern.toml and the agent files, commit them, then run ${ref("doctor")}.`] });
}

interface Proposal {
	ok: true;
	data: SetupData;
	/** The proposal in one sentence. */
	found: string;
	root: string;
	configText: string;
	agents: string[];
	folds: Fold[];
	/** Where the map skeleton goes (null: unknown, see its file entry's reason). */
	mapPath: string | null;
}

/** What setup would write here, and what is in place already. */
async function propose(ctx: VerbContext, agentList: string | undefined): Promise<Proposal | { ok: false; refusal: Refusal }> {
	const agents = parseAgents(agentList);
	if (!agents.ok) return { ok: false, refusal: { error: "invalid_arguments", message: agents.message, hints: [`Known agents: ${AGENTS.join(", ")}.`] } };
	const opened = await openRepository(ctx);
	if (!opened.ok) return opened;
	const root = opened.repository.root;
	const [proposal, trunk, configExists] = await Promise.all([detectStack(root), resolveTrunk(root, undefined, ctx.env.DISCERN_TRUNK), exists(join(root, CONFIG_FILE))]);
	const map = await mapSkeleton(root, configExists);
	const projectName = proposal.projectName ?? basename(root);
	// Named with --agents, else the agents whose CLI is on PATH (each provider lists its programs).
	const chosen =
		agentList !== undefined
			? agents.agents.map((agent) => ({ agent: agent as (typeof AGENTS)[number], reason: "named with --agents" }))
			: detectAgents((program) => findExecutable(program, ctx.env)).map(({ agent, reason }) => ({ agent, reason }));
	const names = chosen.map((choice) => choice.agent);
	// Only a new discern.toml records agents, so only then are their instruction files generated (and a person's own folded in).
	const fold = configExists ? { folds: [], kept: [], sources: [] } : await planFolds(root, names);
	const agentsWhy = agentList !== undefined ? "named with --agents" : names.length > 0 ? `found on PATH: ${chosenPrograms(chosen)}` : undefined;
	const configText = renderConfig(proposal, { projectName, trunk: trunk.name, agents: names, ...(agentsWhy ? { agentsWhy } : {}), instructionSources: fold.sources });
	const data: SetupData = {
		project_name: projectName,
		stacks: proposal.stacks.map((stack) => ({ ...stack })),
		jobs: proposal.jobs.map((job) => ({ ...job })),
		scopes: proposal.scopes.map((scope) => ({ ...scope, paths: [...scope.paths] })),
		agents: chosen,
		files: [
			{ path: CONFIG_FILE, action: configExists ? "keep" : "create", ...(map.kind === "unknown" ? { reason: map.why } : {}) },
			...(map.kind === "at" ? [{ path: map.path, action: map.exists ? ("keep" as const) : ("create" as const) }] : []),
			...fold.folds.map((item) => (item.action === "move" ? { path: item.to, action: "move" as const, from: item.from, reason: item.reason } : { path: item.from, action: "remove" as const, reason: item.reason })),
			...fold.kept.map((item) => ({ path: item.path, action: "keep" as const, reason: item.reason })),
		],
		config_exists: configExists,
		written: false,
		config_text: configText,
	};
	const found = `${describeProposal(data)} ${describeAgents(data.agents, agentList !== undefined)}`;
	return { ok: true, data, found, root, configText, agents: names, folds: fold.folds, mapPath: map.kind === "at" ? map.path : null };
}

type MapSkeleton = { kind: "at"; path: string; exists: boolean } | { kind: "unknown"; why: string };

/**
 * Where the map skeleton belongs: the default folder for a new discern.toml,
 * else the folder the existing one names in `[map].dir`. Unknown when that
 * file is invalid or names a folder outside the repository.
 */
async function mapSkeleton(root: string, configExists: boolean): Promise<MapSkeleton> {
	const at = async (path: string): Promise<MapSkeleton> => ({ kind: "at", path, exists: await exists(join(root, path)) });
	if (!configExists) return at(MAP_README_PATH);
	const load = await loadConfig(root);
	// "missing" after it was found: a link to nowhere, or it went away meanwhile.
	if (load.state === "missing") return { kind: "unknown", why: `${CONFIG_FILE} cannot be read, so the map's folder is unknown.` };
	if (load.state === "invalid") return { kind: "unknown", why: `${CONFIG_FILE} is invalid, so the map's folder is unknown; fix it (config validate shows where), then run setup again.` };
	const folder = await openMapFolder(root, load.config.map.dir);
	const dir = folder.state === "present" ? folder.folder.dir : folder.dir;
	if (folder.state === "outside") return { kind: "unknown", why: `[map].dir \`${clip(dir)}\` leads outside the repository, so no map skeleton is written.` };
	return at(`${dir}README.md`);
}

/** `claude, codex`: the programs named in the detection reasons. */
function chosenPrograms(chosen: readonly { reason: string }[]): string {
	return chosen.map((choice) => /^`([^`]+)`/.exec(choice.reason)?.[1] ?? "?").join(", ");
}

function describeAgents(agents: SetupData["agents"], named: boolean): string {
	if (agents.length > 0) return `Agents: ${agents.map((choice) => `${choice.agent} (${choice.reason})`).join("; ")}.`;
	if (named) return "No agents.";
	const programs = [...new Set(PROVIDERS.flatMap((provider) => provider.clis))];
	return `No agent CLI on PATH (looked for ${programs.join(", ")}); name agents with --agents.`;
}

function describeFolds(folds: readonly Fold[]): string {
	return folds.map((fold) => (fold.action === "move" ? ` Moved ${fold.from} to ${fold.to} (listed in [instructions].sources).` : ` Removed the link ${fold.from} (to ${fold.to}).`)).join("");
}

/** `--agents claude_code,codex` → a checked list; an unknown name is refused with the nearest known one. */
function parseAgents(raw: string | undefined): { ok: true; agents: string[] } | { ok: false; message: string } {
	if (raw === undefined) return { ok: true, agents: [] };
	const agents = [...new Set(raw.split(",").map((name) => name.trim()).filter((name) => name !== ""))];
	for (const agent of agents) {
		if ((AGENTS as readonly string[]).includes(agent)) continue;
		const suggestion = nearest(agent, AGENTS);
		return { ok: false, message: `\`--agents\` names an unknown agent \`${clip(agent)}\`${suggestion ? `; did you mean \`${suggestion}\`?` : "."}` };
	}
	return { ok: true, agents };
}

function describeProposal(data: SetupData): string {
	const stacks = data.stacks.map((stack) => stack.kind);
	const jobs = data.jobs.map((job) => job.name);
	if (stacks.length === 0) return "No known stack detected; the proposal has no jobs yet.";
	const scopes = data.scopes.length > 0 ? `; scopes: ${data.scopes.map((scope) => scope.name).join(", ")}` : "";
	return `Detected ${[...new Set(stacks)].join(", ")}; proposed jobs: ${jobs.length > 0 ? jobs.join(", ") : "none"}${scopes}.`;
}
