import { basename, join } from "node:path";
import type * as v from "valibot";
import { asVerb, fail, ok, type PlanItem, type Refusal, type Result } from "../../contract/envelope.ts";
import type { VerbContext } from "../../contract/context.ts";
import { CONFIG_FILE } from "../../config/load.ts";
import { AGENTS } from "../../config/schema.ts";
import { clip } from "../../text/clip.ts";
import { nearest } from "../../text/suggest.ts";
import { resolveTrunk } from "../../git/trunk.ts";
import type { RunningBinary } from "../../agents/command.ts";
import { refresh } from "../refresh/refresh.ts";
import { exists, resolveInside, writeFileAtomic, WriteDeniedError } from "../../platform/files.ts";
import { openRepository } from "../../project/open.ts";
import { detectStack } from "../../setup/detect.ts";
import { renderConfig } from "../../setup/render-config.ts";
import { MAP_README, MAP_README_PATH } from "./map-skeleton.ts";
import type { SetupData, SetupInput, SetupVerifyInput } from "./schema.ts";
import { ref, sayFor } from "../../hints/refer.ts";

/** `setup verify`: the proposal and what is already in place; writes nothing. */
export async function verifySetup(ctx: VerbContext, input: v.InferOutput<typeof SetupVerifyInput>): Promise<Result<"setup verify", SetupData>> {
	const say = sayFor(ctx.surface);
	const proposed = await propose(ctx, input.agents);
	if (!proposed.ok) return asVerb("setup verify", proposed.refusal);
	const { data, found } = proposed;
	const message = data.config_exists ? `discern is set up here (${CONFIG_FILE} exists). ${found}` : `Not set up yet. ${found}`;
	return ok("setup verify", message, data, data.config_exists ? {} : { hints: [say`Run ${ref("setup", { confirmed: true })} to write discern.toml.`] });
}

/**
 * Adopt discern: detect the stack, propose jobs, and only with `--confirmed`
 * write discern.toml and the map skeleton. Never overwrites a discern.toml.
 */
export async function setup(ctx: VerbContext, input: v.InferOutput<typeof SetupInput>, running?: RunningBinary): Promise<Result<"setup", SetupData>> {
	const say = sayFor(ctx.surface);
	const confirmed = ref("setup", { confirmed: true });
	const proposed = await propose(ctx, input.agents);
	if (!proposed.ok) return asVerb("setup", proposed.refusal);
	const { data, found, root, mapExists, configText } = proposed;
	const configExists = data.config_exists;
	if (configExists) {
		return fail("setup", "write_denied", `${CONFIG_FILE} already exists; setup never overwrites it.`, [
			say`Edit discern.toml by hand, and check it with ${ref("config validate")}.`,
			say`Run ${ref("setup verify")} to compare with what setup would propose.`,
		], { data });
	}
	const plan: PlanItem[] = data.files.map((file) => ({
		kind: "write",
		label: file.path,
		disposition: file.action === "create" ? "run" : "skip",
		...(file.action === "keep" ? { note: "exists; left alone" } : {}),
	}));
	if (!input.confirmed || input.dry_run) {
		const preview = ok("setup", `Would write ${CONFIG_FILE}. ${found}`, data, {
			dry_run: true,
			plan,
			hints: [say`Review the proposal, then run ${confirmed} to write it.`],
		});
		// On an interactive terminal a yes is the consent --confirmed gives; anywhere else, the preview is the answer.
		if (input.dry_run || !ctx.confirm) return preview;
		const creating = data.files.filter((file) => file.action === "create").map((file) => file.path);
		if (!(await ctx.confirm(`Write ${creating.join(" and ")}?`, preview))) {
			return ok("setup", `Nothing written. ${found}`, data, { dry_run: true, plan, hints: [say`Run ${confirmed} when you want it written.`] });
		}
	}
	try {
		// Check every target first, so a refusal leaves nothing half-written.
		await Promise.all(data.files.filter((file) => file.action === "create").map((file) => resolveInside(root, file.path)));
		// discern.toml last: it is what marks the repository as set up.
		if (!mapExists) await writeFileAtomic(root, MAP_README_PATH, MAP_README);
		await writeFileAtomic(root, CONFIG_FILE, configText);
	} catch (error) {
		if (error instanceof WriteDeniedError) {
			return fail("setup", "write_denied", error.message, ["Move what is in the way (a symlink or a file where a folder belongs), or write discern.toml by hand."], { data });
		}
		throw error;
	}
	const wrote = `Wrote ${data.files.filter((file) => file.action === "create").map((file) => file.path).join(" and ")}.`;
	const review = say`Review discern.toml, commit it, then run ${ref("doctor")}.`;
	if (!running || proposed.agents.length === 0) return ok("setup", `${wrote} ${found}`, { ...data, written: true }, { hints: [review] });
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
	mapExists: boolean;
	configText: string;
	agents: string[];
}

/** What setup would write here, and what is in place already. */
async function propose(ctx: VerbContext, agentList: string | undefined): Promise<Proposal | { ok: false; refusal: Refusal }> {
	const agents = parseAgents(agentList);
	if (!agents.ok) return { ok: false, refusal: { error: "invalid_arguments", message: agents.message, hints: [`Known agents: ${AGENTS.join(", ")}.`] } };
	const opened = await openRepository(ctx);
	if (!opened.ok) return opened;
	const root = opened.repository.root;
	const [proposal, trunk, configExists, mapExists] = await Promise.all([
		detectStack(root),
		resolveTrunk(root, undefined, ctx.env.DISCERN_TRUNK),
		exists(join(root, CONFIG_FILE)),
		exists(join(root, MAP_README_PATH)),
	]);
	const configText = renderConfig(proposal, { projectName: basename(root), trunk: trunk.name, agents: agents.agents });
	const data: SetupData = {
		stacks: proposal.stacks.map((stack) => ({ ...stack })),
		jobs: proposal.jobs.map((job) => ({ ...job })),
		files: [
			{ path: CONFIG_FILE, action: configExists ? "keep" : "create" },
			{ path: MAP_README_PATH, action: mapExists ? "keep" : "create" },
		],
		config_exists: configExists,
		written: false,
		config_text: configText,
	};
	return { ok: true, data, found: describeProposal(data), root, mapExists, configText, agents: agents.agents };
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
	return `Detected ${[...new Set(stacks)].join(", ")}; proposed jobs: ${jobs.length > 0 ? jobs.join(", ") : "none"}.`;
}
