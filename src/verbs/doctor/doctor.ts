import type * as v from "valibot";
import { loadConfig } from "../../config/load.ts";
import { folderRefusal } from "../../config/open-project.ts";
import type { VerbContext } from "../../contract/context.ts";
import { fail, ok, type Result } from "../../contract/envelope.ts";
import { mainCheckoutNear } from "../../git/nearest-checkout.ts";
import { locateRepository } from "../../git/repository.ts";
import { folderProblem } from "../../platform/folder.ts";
import { clip } from "../../text/clip.ts";
import { plural } from "../../text/plural.ts";
import { endSentence } from "../../text/sentence.ts";
import { oneLine } from "../../text/terminal.ts";
import {
	checkAgentWiring,
	checkBinary,
	checkConfig,
	checkEvidenceWorkers,
	checkGitAccess,
	checkGitVersion,
	checkIdentity,
	checkJobExecutables,
	checkRepository,
	checkServers,
	checkTestJob,
	checkTrunk,
} from "./checks.ts";
import type { Check, DoctorData, DoctorInput } from "./schema.ts";

/** Check the install, the repository, the config and the agent wiring: facts with fixes. */
export async function doctor(ctx: VerbContext, input: v.InferOutput<typeof DoctorInput>): Promise<Result<"doctor", DoctorData>> {
	const verbose = input.verbose ?? false;
	const unusable = await folderProblem(ctx.cwd);
	const [gitVersion, located] = await Promise.all([
		checkGitVersion(ctx),
		unusable ? { found: false as const, reason: unusable } : locateRepository(ctx.cwd, ctx.env),
	]);
	const workers = checkEvidenceWorkers();
	const checks: Check[] = [gitVersion, checkRepository(located.found ? located.repository : null, located.found ? "" : located.reason, ctx.surface)];
	if (located.found) {
		const root = located.repository.root;
		const config = await loadConfig(root, ctx.narrate);
		const [access, identity, trunk, jobs, wiring, servers] = await Promise.all([
			checkGitAccess(root),
			checkIdentity(ctx, root),
			checkTrunk(ctx, root, config),
			checkJobExecutables(ctx, located.repository, config),
			checkAgentWiring(ctx, root, config),
			checkServers(ctx, root, config),
		]);
		const testJob = checkTestJob(config);
		checks.push(access, identity, trunk, checkConfig(config, ctx.action), ...(testJob ? [testJob] : []), ...jobs);
		checks.push(checkBinary(ctx, verbose), await workers, wiring, ...servers);
	} else {
		checks.push(checkBinary(ctx, verbose), await workers);
	}
	const data: DoctorData = { checks, summary: tally(checks) };
	if (unusable) {
		const refusal = folderRefusal(ctx.cwd, unusable, ctx.surface, await mainCheckoutNear(ctx.cwd, ctx.env));
		return fail("doctor", refusal.error, refusal.message, refusal.hints, { data });
	}
	if (!located.found) {
		return fail(
			"doctor",
			"no_repository",
			`Not inside a git repository: ${endSentence(clip(oneLine(located.reason)))}`,
			[ctx.surface === "cli" ? "Run `discern doctor` inside a git checkout, or pass --cwd DIR." : "Pass an absolute `path` inside a git checkout."],
			{ data },
		);
	}
	const failing = checks.filter((check) => check.state === "fail");
	if (failing.length > 0) {
		const hints = failing.map((check) => `${check.title}: ${check.fix ?? check.detail}`) as [string, ...string[]];
		return fail("doctor", "checks_failed", `${failing.length} of ${checks.length} checks failed: ${failing.map((check) => check.id).join(", ")}.`, hints, {
			data,
		});
	}
	const { warn } = data.summary;
	return ok("doctor", `All ${checks.length} checks passed${warn > 0 ? ` (${plural(warn, "warning")})` : ""}.`, data);
}

function tally(checks: readonly Check[]): DoctorData["summary"] {
	const summary = { ok: 0, warn: 0, fail: 0 };
	for (const check of checks) summary[check.state]++;
	return summary;
}
