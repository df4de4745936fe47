import type * as v from "valibot";
import { openProject } from "../../config/open-project.ts";
import type { VerbContext } from "../../contract/context.ts";
import { asVerb, fail, ok, type Result } from "../../contract/envelope.ts";
import { ref } from "../../contract/refer.ts";
import { failureSentence } from "../../jobs/execute.ts";
import { planItems, planStandards } from "../../jobs/plan.ts";
import { writeDenied } from "../../platform/write-denied.ts";
import { measureStandards, tightenedLimit } from "../../standards/measure.ts";
import { failing } from "../../standards/verdict.ts";
import { plural } from "../../text/plural.ts";
import { resolveTrunk } from "../../trunk/resolve.ts";
import { pinStandards } from "./pin.ts";
import type { StandardsData, StandardsInput } from "./schema.ts";
import { selectStandards } from "./select.ts";

type StandardsResult = Result<"standards", StandardsData>;

/**
 * `standards [NAMES…]`: measure the selected standards fresh on the working
 * tree (dirty or not) and judge each against its limit: held, improved
 * (with the limit a pin would set), regressed or unmeasured. `pin: true`
 * (the MCP tool's spelling of `standards pin`) pins instead.
 */
export async function standards(ctx: VerbContext, input: v.InferOutput<typeof StandardsInput>): Promise<StandardsResult> {
	if (input.pin) return pinStandards(ctx, "standards", input);
	const { say } = ctx;
	const opened = await openProject(ctx);
	if (!opened.ok) return asVerb("standards", opened.refusal);
	const { repository, config } = opened;
	const selected = selectStandards("standards", config, input.names, ctx.say);
	if (!selected.ok) return selected.result;
	const { names } = selected;
	if (names.length === 0) {
		return ok(
			"standards",
			"discern.toml declares no standard: nothing to measure.",
			{ standards: [], interrupted: false },
			{
				hints: [say`Declare one under [standards.NAME] (a command that prints \`DISCERN_METRIC NAME NUMBER\`); see ${ref("docs", { target: "config" })}.`],
			},
		);
	}
	if (input.dry_run) {
		return ok(
			"standards",
			`Would measure ${plural(names.length, "standard")}; nothing ran.`,
			{ standards: [], interrupted: false },
			{ dry_run: true, plan: planItems(planStandards(config, names)) },
		);
	}
	const { trunk } = await resolveTrunk(repository.root, config.repository.trunk, ctx.env.DISCERN_TRUNK, { location: repository });
	let measured: Awaited<ReturnType<typeof measureStandards>>;
	try {
		measured = await measureStandards(ctx, repository, trunk.name, config, names);
	} catch (error) {
		const refusal = writeDenied(error, "the run's logs");
		if (refusal) return asVerb("standards", refusal);
		throw error;
	}
	const { report, steps, leftovers } = measured.execution;
	const readings: StandardsData["standards"] = measured.readings.map(({ name, verdict, value, limit }) => {
		const standard = config.standards[name];
		const proposed = verdict === "improved" && value !== null && standard ? tightenedLimit(standard, value) : null;
		return { name, verdict, value, limit, ...(proposed !== null ? { proposed } : {}) };
	});
	const data: StandardsData = { standards: readings, interrupted: report.interrupted };
	if (report.interrupted) {
		return fail("standards", "interrupted", `${failureSentence(report)}.`, ["Nothing was decided: run it again when you are ready.", ...leftovers], {
			data,
			steps,
		});
	}
	if (measured.failed) {
		const bad = measured.readings.filter(failing).map((reading) => `${reading.name} ${reading.verdict}`);
		return fail(
			"standards",
			"gate_failed",
			`Standards failed: ${bad.join(", ")}.`,
			[say`Read the diagnostics (each names the command to reproduce it), fix, and run ${ref("standards")} again.`, ...leftovers],
			{
				data,
				steps,
				diagnostics: measured.diagnostics,
			},
		);
	}
	const pinnable = readings.filter((reading) => reading.proposed !== undefined);
	const summary = readings.map((reading) => `${reading.name} ${reading.verdict}`).join(", ");
	return ok("standards", `Standards hold: ${summary}.`, data, {
		steps,
		hints: [
			...leftovers,
			...(pinnable.length > 0
				? [
						say`${plural(pinnable.length, "standard")} gained more than ${pinnable.length === 1 ? "its" : "their"} margin: on a clean, committed tree ${ref("standards pin", { names: pinnable.map((reading) => reading.name) })} tightens ${pinnable.length === 1 ? "it" : "them"} and commits discern.toml alone.`,
					]
				: []),
		],
	});
}
