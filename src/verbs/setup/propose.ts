import { basename, join } from "node:path";
import { detectAgents, PROVIDERS } from "../../agents/providers.ts";
import { CONFIG_FILE, type ConfigLoad, loadConfig } from "../../config/load.ts";
import { openRepository } from "../../config/open-project.ts";
import { AGENTS } from "../../config/schema.ts";
import type { VerbContext } from "../../contract/context.ts";
import type { Refusal } from "../../contract/envelope.ts";
import type { RepositoryLocation } from "../../git/repository.ts";
import { openMapFolder } from "../../pages/map-folder.ts";
import { MAP_README_PATH } from "../../pages/map-skeleton.ts";
import { exists } from "../../platform/files.ts";
import { findExecutable } from "../../platform/process.ts";
import { detectStack, trackedPaths } from "../../setup/detect.ts";
import { IGNORE_FILE, ignoreFileState, missingIgnores } from "../../setup/ignores.ts";
import { type Fold, planFolds } from "../../setup/instructions.ts";
import { missingProgramNotes } from "../../setup/missing-programs.ts";
import { renderConfig } from "../../setup/render-config.ts";
import { clip } from "../../text/clip.ts";
import { nearest } from "../../text/suggest.ts";
import { resolveTrunk } from "../../trunk/resolve.ts";
import type { SetupData } from "./schema.ts";

/**
 * What `setup` and `setup verify` show: the stack detected, the jobs, scopes
 * and agents proposed, the discern.toml they make, and every file setup
 * would write or leave alone, with why.
 */

export interface Proposal {
	ok: true;
	data: SetupData;
	/** The proposal in one sentence. */
	found: string;
	root: string;
	repository: RepositoryLocation;
	configText: string;
	agents: string[];
	folds: Fold[];
	/** Where the map skeleton goes (null: unknown, see its file entry's reason). */
	mapPath: string | null;
	/** The lines to append to the root .gitignore (empty: none, or setup cannot write it: see its file entry). */
	ignoreLines: string[];
	/** The discern.toml already there, as read once for the proposal (null: none yet); `setup verify` judges this one. */
	existing: ConfigLoad | null;
}

/** What setup would write here, and what is in place already. */
export async function propose(ctx: VerbContext, agentList: string | undefined): Promise<Proposal | { ok: false; refusal: Refusal }> {
	const agents = parseAgents(agentList);
	if (!agents.ok) return { ok: false, refusal: { error: "invalid_arguments", message: agents.message, hints: [`Known agents: ${AGENTS.join(", ")}.`] } };
	const opened = await openRepository(ctx);
	if (!opened.ok) return opened;
	const root = opened.repository.root;
	const [proposal, trunk, configExists, ignoreFile] = await Promise.all([
		trackedPaths(root).then((isTracked) => detectStack(root, isTracked ? { isTracked } : {})),
		resolveTrunk(root, undefined, ctx.env.DISCERN_TRUNK).then((resolved) => resolved.trunk),
		exists(join(root, CONFIG_FILE)),
		ignoreFileState(root),
	]);
	const existing = configExists ? await loadConfig(root, ctx.narrate) : null;
	const [map, ignores, notes, installNotes] = await Promise.all([
		mapSkeleton(root, existing),
		missingIgnores(root, proposal.ignores),
		missingProgramNotes(root, proposal.jobs, ctx.env),
		// An install's own program only: what it installs is not here yet by design.
		missingProgramNotes(
			root,
			proposal.installs.map((install) => ({ name: install.run, run: install.run })),
			ctx.env,
		),
	]);
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
	const configText = renderConfig(proposal, {
		projectName,
		trunk: trunk.name,
		agents: names,
		...(agentsWhy ? { agentsWhy } : {}),
		instructionSources: fold.sources,
	});
	const data: SetupData = {
		project_name: projectName,
		stacks: proposal.stacks.map((stack) => ({ ...stack })),
		jobs: proposal.jobs.map((job) => {
			const note = notes.get(job.name);
			return note === undefined ? { ...job } : { ...job, note };
		}),
		scopes: proposal.scopes.map((scope) => ({ ...scope, paths: [...scope.paths] })),
		installs: proposal.installs.map((install) => {
			const note = installNotes.get(install.run);
			return note === undefined ? { ...install } : { ...install, note };
		}),
		seeds: proposal.seeds.map((seed) => ({ ...seed })),
		agents: chosen,
		files: [
			{ path: CONFIG_FILE, action: configExists ? "keep" : "create", ...(map.kind === "unknown" ? { reason: map.why } : {}) },
			...(map.kind === "at" ? [{ path: map.path, action: map.exists ? ("keep" as const) : ("create" as const) }] : []),
			...fold.folds.map((item) =>
				item.action === "move"
					? { path: item.to, action: "move" as const, from: item.from, reason: item.reason }
					: { path: item.from, action: "remove" as const, reason: item.reason },
			),
			...fold.kept.map((item) => ({ path: item.path, action: "keep" as const, reason: item.reason })),
			...(ignores.length > 0 ? [ignoreFileEntry(ignoreFile, ignores.length)] : []),
		],
		ignores: ignores.map(({ line, reason }) => ({ line, reason })),
		config_exists: configExists,
		written: false,
		config_text: configText,
	};
	const found = `${describeProposal(data)} ${describeAgents(data.agents, agentList !== undefined)}`;
	const ignoreLines = ignoreFile === "other" ? [] : ignores.map((ignore) => ignore.line);
	return {
		ok: true,
		data,
		found,
		root,
		repository: opened.repository,
		configText,
		agents: names,
		folds: fold.folds,
		mapPath: map.kind === "at" ? map.path : null,
		ignoreLines,
		existing,
	};
}

/** The root .gitignore's entry when lines are missing: created, appended to, or (not a file setup writes) left for the person. */
function ignoreFileEntry(state: "absent" | "file" | "other", count: number): SetupData["files"][number] {
	const lines = count === 1 ? "1 line" : `${count} lines`;
	if (state === "absent") return { path: IGNORE_FILE, action: "create", reason: `${lines} for the folders the jobs write` };
	if (state === "file") return { path: IGNORE_FILE, action: "append", reason: `${lines} for the folders the jobs write; nothing already there changes` };
	return {
		path: IGNORE_FILE,
		action: "keep",
		reason: `${IGNORE_FILE} is not a regular file of at most 1 MiB, so setup does not add to it: add the ${lines} shown by hand`,
	};
}

type MapSkeleton = { kind: "at"; path: string; exists: boolean } | { kind: "unknown"; why: string };

/**
 * Where the map skeleton belongs: the default folder for a new discern.toml,
 * else the folder the existing one names in `[map].dir`. Unknown when that
 * file is invalid or names a folder outside the repository.
 */
async function mapSkeleton(root: string, load: ConfigLoad | null): Promise<MapSkeleton> {
	const at = async (path: string): Promise<MapSkeleton> => ({ kind: "at", path, exists: await exists(join(root, path)) });
	if (!load) return at(MAP_README_PATH);
	// "missing" after it was found: a link to nowhere, or it went away meanwhile.
	if (load.state === "missing") return { kind: "unknown", why: `${CONFIG_FILE} cannot be read, so the map's folder is unknown.` };
	if (load.state === "invalid")
		return {
			kind: "unknown",
			why: `${CONFIG_FILE} is invalid, so the map's folder is unknown; fix it (\`discern config validate\` shows where), then run setup again.`,
		};
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

export function describeFolds(folds: readonly Fold[]): string {
	return folds
		.map((fold) =>
			fold.action === "move" ? ` Moved ${fold.from} to ${fold.to} (listed in [instructions].sources).` : ` Removed the link ${fold.from} (to ${fold.to}).`,
		)
		.join("");
}

/** `--agents claude_code,codex` → a checked list; an unknown name is refused with the nearest known one. */
function parseAgents(raw: string | undefined): { ok: true; agents: string[] } | { ok: false; message: string } {
	if (raw === undefined) return { ok: true, agents: [] };
	const agents = [
		...new Set(
			raw
				.split(",")
				.map((name) => name.trim())
				.filter((name) => name !== ""),
		),
	];
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
