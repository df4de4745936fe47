import type * as v from "valibot";
import { openProject } from "../config/open-project.ts";
import type { VerbContext } from "../contract/context.ts";
import { asVerb, fail, ok, type Result } from "../contract/envelope.ts";
import type { RenderOptions, VerbModule } from "../contract/verb.ts";
import { writeDenied } from "../platform/write-denied.ts";
import { diagnosticLines, joinLines, planLines, stepLines } from "../render/result-lines.ts";
import { plural } from "../text/plural.ts";
import { quoteName } from "../text/terminal.ts";
import { resolveTrunk } from "../trunk/resolve.ts";
import { executePlan, failureSentence, ranLabels, worktreeSetupRemedy } from "./execute.ts";
import type { InnerLoopVerb, InnerLoopWords } from "./inner-loop-verb.ts";
import { configDigest, writeLastRun } from "./last-run.ts";
import { planGate, planItems } from "./plan.ts";
import type { FailedStage, InnerLoopData, InnerLoopInput } from "./schema.ts";
import { pathsChanged, snapshotTree } from "./tree-state.ts";

/** The code of an inner-loop verb (see inner-loop-verb.ts): its core and its text, in its own words. */
export function innerLoopModule<const Verb extends InnerLoopVerb>(
	words: InnerLoopWords<Verb>,
): VerbModule<Verb, v.InferOutput<typeof InnerLoopInput>, InnerLoopData> {
	return { run: (ctx, input) => innerLoop(ctx, words, input), render: renderInnerLoop };
}

/**
 * `prepare` (formatters, then lint and typecheck) and `test` (the test
 * stage): the fast inner loop. They run on a dirty tree and never earn a
 * Proof; `prepare` may leave formatter edits for the agent to review.
 */
async function innerLoop<const Verb extends InnerLoopVerb>(
	ctx: VerbContext,
	words: InnerLoopWords<Verb>,
	input: { dry_run?: boolean | undefined },
): Promise<Result<Verb, InnerLoopData>> {
	const { say } = ctx;
	const verb = words.name;
	const opened = await openProject(ctx);
	if (!opened.ok) return asVerb(verb, opened.refusal);
	const { repository, config } = opened;
	const plan = planGate(verb, config);
	if (input.dry_run) {
		const count = plan.phases.flat().length;
		return ok(
			verb,
			`Would run ${plural(count, "job")}; nothing ran.`,
			{ failed_stage: null, modified: [], interrupted: false },
			{ dry_run: true, plan: planItems(plan) },
		);
	}
	const [trunk, before] = await Promise.all([
		resolveTrunk(repository.root, config.repository.trunk, ctx.env.DISCERN_TRUNK, { location: repository }).then((resolved) => resolved.trunk),
		snapshotTree(repository.root),
	]);
	let execution: Awaited<ReturnType<typeof executePlan>>;
	try {
		execution = await executePlan(ctx, repository, trunk.name, plan);
	} catch (error) {
		// Its state folder blocked (a file, or a link discern does not follow: state/dir.ts) is a refusal naming it, not a crash.
		const refusal = writeDenied(error, "the run's logs");
		if (refusal) return asVerb(verb, refusal);
		throw error;
	}
	const modified = pathsChanged(before, await snapshotTree(repository.root));
	const { report, steps, diagnostics, durationS, leftovers } = execution;
	// An interrupted run failed no stage: nobody's check said no.
	const failedStage = (report.failed?.job.stage ?? null) as FailedStage | null;
	if (!report.interrupted) {
		await writeLastRun(repository.gitDir, {
			verb,
			ok: failedStage === null,
			failed_stage: failedStage,
			head: before.head,
			tree: null,
			config_digest: configDigest(JSON.stringify(config)),
			standalone: true,
			time: new Date().toISOString(),
			duration_s: durationS,
		}).catch(() => undefined);
	}
	const data: InnerLoopData = { failed_stage: failedStage, modified, interrupted: report.interrupted };
	if (report.failed || report.interrupted) {
		const reviewEdits =
			modified.length > 0 ? [`Review the edits the run made: ${modified.slice(0, 5).map(quoteName).join(", ")}${modified.length > 5 ? ", …" : ""}.`] : [];
		// Interrupted is its own code: nobody's check said no, so a script must not read it as red.
		return report.interrupted
			? fail(verb, "interrupted", `${failureSentence(report)}.`, ["Nothing was decided: run it again when you are ready.", ...leftovers, ...reviewEdits], {
					data,
					steps,
					diagnostics,
				})
			: fail(
					verb,
					"gate_failed",
					`${failureSentence(report)}.`,
					[
						"Read the diagnostics (each names the command to reproduce it), fix, and run this again.",
						...worktreeSetupRemedy(ctx.say, report, repository.location, config.worktree.setup),
						...leftovers,
						...reviewEdits,
					],
					{ data, steps, diagnostics },
				);
	}
	const labels = ranLabels(report);
	const passed = labels.length > 0 ? `${verb} passed: ${labels.join(", ")} (${plural(labels.length, "job")}, ${durationS} s).` : `${verb} had no jobs to run.`;
	const hints = [
		...leftovers,
		...(modified.length > 0 ? [`Formatters changed ${plural(modified.length, "file")}: review and commit them.`] : []),
		...(labels.length === 0 ? [words.nothingDeclared] : []),
		words.next(say),
	];
	return ok(verb, passed, data, { steps, hints, ...(diagnostics.length > 0 ? { diagnostics } : {}) });
}

/** Each step with its outcome, a dry run's plan, each failure's reproduce command and output, then the summary. */
function renderInnerLoop<Verb extends InnerLoopVerb>(result: Result<Verb, InnerLoopData>, options: RenderOptions): string {
	const lines = [...stepLines(result, options), ...planLines(result, options.color), ...diagnosticLines(result, options)];
	if (result.ok && !result.dry_run) lines.push("", result.message);
	return joinLines(lines);
}
