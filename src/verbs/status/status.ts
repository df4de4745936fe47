import { basename } from "node:path";
import { staleWiring } from "../../agents/wiring.ts";
import { jobsByStage } from "../../config/jobs.ts";
import { type ConfigLoad, loadConfig } from "../../config/load.ts";
import { openRepository } from "../../config/open-project.ts";
import { STAGES } from "../../config/schema.ts";
import type { VerbContext } from "../../contract/context.ts";
import { asVerb, ok, type Result } from "../../contract/envelope.ts";
import { aheadBehind, gitProblem } from "../../git/repository.ts";
import { readBranchClues, type Trunk } from "../../git/trunk.ts";
import { configDigest, readLastDone, readLastRun } from "../../jobs/last-run.ts";
import { judgeProof } from "../../proof/checkout-state.ts";
import { readProof } from "../../proof/record.ts";
import { pendingAdoption } from "../../setup/adoption.ts";
import { clip } from "../../text/clip.ts";
import { quoteName } from "../../text/terminal.ts";
import { resolveTrunk } from "../../trunk/resolve.ts";
import { readFleet } from "../../worktree/fleet.ts";
import { hasLinkedWorktrees } from "../../worktree/git-worktrees.ts";
import { toItem } from "../../worktree/item.ts";
import { orphanedLedgers } from "../../worktree/ledger.ts";
import { readTask } from "../../worktree/task.ts";
import { everyChange, readTreeWork } from "../../worktree/tree-work.ts";
import { coachHint } from "./coach.ts";
import { nextAction } from "./next.ts";
import { MAX_LISTED_CHANGES, type StatusData } from "./schema.ts";
import { nearLimits } from "./standards.ts";

/** What is true now, and the one next action. Read-only; observations never fail it. */
export async function status(ctx: VerbContext, _input: Record<string, never>): Promise<Result<"status", StatusData>> {
	const opened = await openRepository(ctx);
	if (!opened.ok) return asVerb("status", opened.refusal);
	const { repository } = opened;
	// Every git call is a process start, so all that can run at once does.
	const branches = readBranchClues(repository.root);
	// The fleet costs processes per worktree: none are started when there is no linked worktree (a file-system look decides).
	const fleetless = repository.location === "main" ? hasLinkedWorktrees(repository.commonDir).then((any) => !any) : Promise.resolve(true);
	const task = repository.location === "worktree" ? readTask(repository.gitDir) : Promise.resolve(null);
	// Clean as done judges it (tree-work.ts): a tree done and accept would refuse is never shown clean, its Proof never honored.
	const [work, config] = await Promise.all([
		readTreeWork(repository.root, repository.commonDir, repository.gitDir),
		loadConfig(repository.root, ctx.narrate),
		branches.catch(() => undefined),
	]);
	// A hidden file holding work (assume-unchanged, skip-worktree) is among the changes: git's own status does not show it.
	const working = work ? everyChange(work) : null;
	const configured = config.state === "valid" ? config.config : null;
	const { trunk, contested } = await resolveTrunk(repository.root, configured?.repository.trunk, ctx.env.DISCERN_TRUNK, { branches, location: repository });
	const [counts, fleet, proof, lastRun, lastDone, taskRecord, stale] = await Promise.all([
		countAgainstTrunk(repository.root, trunk, working?.head ?? null),
		fleetless.then((none) => (none ? [] : readFleet(repository, trunk, { linkedOnly: true }))),
		readProof(repository.gitDir),
		readLastRun(repository.gitDir),
		readLastDone(repository.gitDir),
		task,
		configured ? staleWiring(repository.root, configured, ctx.verbs).catch(() => []) : [],
	]);
	const changes = working?.changes ?? [];
	const data: StatusData = {
		location: repository.location,
		root: repository.root,
		project: {
			name: configured?.project.name ?? basename(repository.root),
			config: config.state,
			config_issues: config.state === "invalid" ? config.issues.length : 0,
		},
		branch: working?.branch ?? null,
		head: working?.head ? working.head.slice(0, 7) : null,
		trunk: { name: trunk.name, source: trunk.source, exists: trunk.exists, ...(contested.length > 0 ? { contested } : {}) },
		clean: working ? changes.length === 0 : null,
		changes: {
			total: changes.length,
			files: changes.slice(0, MAX_LISTED_CHANGES),
			truncated: changes.length > MAX_LISTED_CHANGES,
		},
		ahead: counts?.ahead ?? null,
		behind: counts?.behind ?? null,
		jobs: configured ? jobsByStage(configured) : emptyJobs(),
		proof: judgeProof(proof, lastDone, {
			head: working?.head ?? null,
			branch: working?.branch ?? null,
			clean: changes.length === 0 && working !== null,
			digest: configured ? configDigest(JSON.stringify(configured)) : null,
			trunk,
		}),
		last_run: lastRun
			? {
					verb: lastRun.verb,
					ok: lastRun.ok,
					failed_stage: lastRun.failed_stage,
					head: lastRun.head?.slice(0, 7) ?? null,
					time: lastRun.time,
					duration_s: lastRun.duration_s,
				}
			: null,
		...(repository.location === "main"
			? { worktrees: (fleet ?? []).map(toItem), orphaned_ledgers: fleet ? await orphanedLedgers(repository.commonDir, fleet) : [] }
			: { task: taskRecord ? { id: taskRecord.id, title: taskRecord.title, brief: taskRecord.brief === null ? null : clip(taskRecord.brief, 4000) } : null }),
		stale_wiring: stale.map((file) => file.path),
		next: { action: "", reason: "" },
	};
	// Only a trunk whose own discern.toml is uncommitted can hold the adoption commit still to make: only then is git asked more.
	const adoption =
		configured && repository.location === "main" && data.branch !== null && data.branch === trunk.name
			? await pendingAdoption(repository.root, configured, changes).catch(() => null)
			: null;
	data.next = nextAction(ctx, data, {
		configProblem: describeConfig(config),
		gitTrouble: working ? null : await gitProblem(repository.root),
		adoption,
	});
	const near = configured ? nearLimits(ctx.say, data, configured, proof) : null;
	const coach = configured ? await coachHint(ctx, repository, configured, data, working?.head ?? null).catch(() => null) : null;
	const hints = [near, coach].filter((hint): hint is string => hint !== null);
	return ok("status", summarize(data), data, hints.length > 0 ? { hints } : {});
}

/** Ahead/behind the trunk; when HEAD is the trunk's own commit the answer is known without asking git. */
async function countAgainstTrunk(root: string, trunk: Trunk, head: string | null): Promise<{ ahead: number; behind: number } | null> {
	if (!trunk.exists || !trunk.name || head === null) return null;
	if (trunk.sha === head) return { ahead: 0, behind: 0 };
	return aheadBehind(root, `refs/heads/${trunk.name}`);
}

function emptyJobs(): StatusData["jobs"] {
	return Object.fromEntries(STAGES.map((stage) => [stage, []])) as unknown as StatusData["jobs"];
}

function describeConfig(config: ConfigLoad): string | null {
	if (config.state !== "invalid") return null;
	const first = config.issues[0];
	return first ? `${first.line ? `line ${first.line}: ` : ""}${first.message}` : null;
}

function summarize(data: StatusData): string {
	const where = data.location === "main" ? "main checkout" : "worktree";
	const branch = data.branch !== null ? `on ${quoteName(data.branch)}` : `detached at ${data.head ?? "?"}`;
	const state = data.clean === null ? "state unknown" : data.clean ? "clean" : `${data.changes.total} changed`;
	// The project name defaults to the folder's name, which may hold anything a file name can.
	return `${quoteName(data.project.name)}: ${where} ${branch}, ${state}. Next: ${data.next.action}`;
}
