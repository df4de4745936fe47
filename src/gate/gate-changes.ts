import { resolveJobs } from "../config/jobs.ts";
import type { DiscernConfig } from "../config/schema.ts";

/**
 * How this branch changes what the gate itself runs, relative to the
 * trunk's committed config: removed or rewritten jobs, scopes whose paths,
 * gate or neutrality changed, a shorter timeout or fail-fast switched. A
 * branch may have good reasons (a new test runner), so this does not fail
 * the gate; it is said on every result and recorded in the Proof, so that
 * whoever consents to landing sees that the bar itself moved.
 */
export function gateChanges(trunk: DiscernConfig, branch: DiscernConfig): string[] {
	const changes: string[] = [];
	const branchJobs = new Map(resolveJobs(branch).map((job) => [job.name, job]));
	for (const before of resolveJobs(trunk)) {
		const after = branchJobs.get(before.name);
		if (!after) changes.push(`job \`${before.name}\` removed`);
		else if (JSON.stringify([before.stage, before.commands, before.report]) !== JSON.stringify([after.stage, after.commands, after.report])) {
			changes.push(`job \`${before.name}\` changed`);
		} else if (after.timeout !== 0 && (before.timeout === 0 || after.timeout < before.timeout)) changes.push(`job \`${before.name}\` has a shorter timeout`);
	}
	for (const [name, before] of Object.entries(trunk.scopes)) {
		const after = branch.scopes[name];
		if (!after) changes.push(`scope \`${name}\` removed`);
		else {
			if (JSON.stringify(before.paths) !== JSON.stringify(after.paths)) changes.push(`scope \`${name}\` changed its paths`);
			if ((before.gate ?? "") !== (after.gate ?? "")) changes.push(`scope \`${name}\` changed its gate`);
			if (!before.neutral && after.neutral) changes.push(`scope \`${name}\` became neutral`);
		}
	}
	if (trunk.gate.fail_fast !== branch.gate.fail_fast) changes.push("`[gate].fail_fast` changed");
	return changes;
}
