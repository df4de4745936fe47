import type * as v from "valibot";
import { openRepository } from "../../config/open-project.ts";
import type { VerbContext } from "../../contract/context.ts";
import { asVerb, fail, ok, type PlanItem, type Result } from "../../contract/envelope.ts";
import { ref } from "../../contract/refer.ts";
import { clip } from "../../text/clip.ts";
import { plural } from "../../text/plural.ts";
import { destroyResources, planDestroys } from "../../worktree/resources.ts";
import { readTask } from "../../worktree/task.ts";
import type { WorktreeTeardownData, WorktreeTeardownInput } from "./schema.ts";

/** `worktree teardown`: in a worktree, destroy the resources `start` created for it, newest first. */
export async function worktreeTeardown(
	ctx: VerbContext,
	input: v.InferOutput<typeof WorktreeTeardownInput>,
): Promise<Result<"worktree teardown", WorktreeTeardownData>> {
	const { say } = ctx;
	const opened = await openRepository(ctx);
	if (!opened.ok) return asVerb("worktree teardown", opened.refusal);
	const { repository } = opened;
	if (repository.location !== "worktree") {
		return fail("worktree teardown", "not_in_worktree", "The main checkout has no resources of its own: teardown runs inside a worktree discern started.", [
			say`Run it from inside the worktree; ${ref("worktree list")} shows where each one is.`,
		]);
	}
	const task = await readTask(repository.gitDir);
	const data: WorktreeTeardownData = { id: task?.id ?? null, path: repository.root, destroyed: [], failed: [] };
	if (!task) return ok("worktree teardown", "This worktree has no task record, so discern created no resources for it.", data);
	if (input.dry_run) {
		const plan = await plannedDestroys(repository.commonDir, task.id, repository.root);
		return ok(
			"worktree teardown",
			plan.some((item) => item.disposition === "run")
				? `Would destroy ${plural(plan.filter((item) => item.disposition === "run").length, "resource")}, newest first.`
				: "No resources to destroy.",
			data,
			{
				dry_run: true,
				plan: plan.length > 0 ? plan : [{ kind: "destroy", label: "(no resources recorded)", disposition: "skip" }],
			},
		);
	}
	const outcome = await destroyResources(repository.commonDir, task.id, { cwd: repository.root, env: ctx.env, signal: ctx.signal, worktree: repository.root });
	const result: WorktreeTeardownData = { ...data, destroyed: outcome.destroyed, failed: outcome.failed };
	if (!outcome.ok) {
		const first = outcome.failed[0];
		return fail(
			"worktree teardown",
			"provisioned_resources",
			`${plural(outcome.failed.length, "resource")} could not be destroyed${first ? `; first: ${first.name}: ${first.message}` : ""}.`,
			["Fix what the destroy command needs, then run teardown again: what was destroyed is not destroyed twice."],
			{ data: result },
		);
	}
	return ok(
		"worktree teardown",
		outcome.destroyed.length > 0 ? `Destroyed ${plural(outcome.destroyed.length, "resource")}: ${outcome.destroyed.join(", ")}.` : "No resources to destroy.",
		result,
	);
}

/**
 * What a teardown would destroy, newest first: the ledger `start` writes
 * (`<common>/discern/resources/<id>.json`) checked as the destroy checks it,
 * each with the command discern.toml declares for it. Read here only for
 * the preview: the destroying itself is `destroyResources`'s.
 */
async function plannedDestroys(commonDir: string, id: string, worktree: string): Promise<PlanItem[]> {
	const prepared = await planDestroys(commonDir, id, { cwd: worktree, worktree });
	if (!prepared.ok) return [{ kind: "destroy", label: prepared.failure.name, disposition: "skip", note: prepared.failure.message }];
	if (!prepared.ledger) return [];
	return prepared.planned.toReversed().map(({ entry, command, problem }) => ({
		kind: "destroy",
		label: clip(entry.name),
		disposition: entry.state === "destroyed" || command === null ? ("skip" as const) : ("run" as const),
		note: entry.state === "destroyed" ? "already destroyed" : clip(command ?? problem ?? ""),
	}));
}
