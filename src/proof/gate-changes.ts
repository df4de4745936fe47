import { resolveJobs } from "../config/jobs.ts";
import type { DiscernConfig } from "../config/schema.ts";

/**
 * How this branch changes what discern will run or trust, relative to the
 * trunk's committed config: removed or rewritten jobs and new ones, scopes
 * added, removed, redrawn or made neutral, a shorter timeout or fail-fast
 * switched, new standards, scopes the trunk would pre-authorize, the
 * commands and environment every new worktree gets (`[worktree]` setup,
 * ensure, resources, env, seed), the instruction sources compiled into
 * `AGENTS.md`, the agents wired, and the trunk itself. A branch may have
 * good reasons (a new test runner), so this does not fail the gate; it is
 * said on every result, recorded in the Proof and shown before consent, so
 * that whoever consents to landing sees that the bar itself moved — and
 * that a branch widening its own future authority says so in the preview.
 * Each change is a short phrase; existing phrases stay stable.
 */
export function gateChanges(trunk: DiscernConfig, branch: DiscernConfig): string[] {
	const changes: string[] = [];
	const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

	// What widens a branch's future authority first: the Proof line shows only the first few.
	listDelta(changes, "pre_authorized", trunk.acceptance.pre_authorized, branch.acceptance.pre_authorized);

	const [tw, bw] = [trunk.worktree, branch.worktree];
	if (!same(tw.setup.steps, bw.setup.steps)) changes.push("worktree setup.steps changed");
	if (!same(tw.setup.ensure, bw.setup.ensure)) changes.push("worktree setup.ensure changed");
	for (const [name, before] of Object.entries(tw.resources)) {
		const after = Object.hasOwn(bw.resources, name) ? bw.resources[name] : undefined;
		if (!after) changes.push(`worktree resource \`${name}\` removed`);
		else if (!same([before.create, before.destroy], [after.create, after.destroy])) changes.push(`worktree resource \`${name}\` changed`);
	}
	for (const name of Object.keys(bw.resources)) if (!Object.hasOwn(tw.resources, name)) changes.push(`worktree resource \`${name}\` added`);
	if (!same(tw.inherit_env, bw.inherit_env)) changes.push("worktree inherit_env changed");
	if (!same(tw.env_files, bw.env_files)) changes.push("worktree env_files changed");
	// Which of the main checkout's ignored folders every new worktree gets (programs under node_modules/.bin
	// that its commands then run, files an agent then reads): the same weight as the env files copied.
	if (!same(tw.seed, bw.seed)) changes.push("worktree seed changed");
	if (tw.root !== bw.root) changes.push("worktree root changed");

	if (!same(trunk.instructions.sources, branch.instructions.sources)) changes.push("instructions sources changed");
	listDelta(changes, "project agents", trunk.project.agents, branch.project.agents);
	if ((trunk.repository.trunk ?? "") !== (branch.repository.trunk ?? "")) changes.push("repository trunk changed");
	if (trunk.repository.branch_prefix !== branch.repository.branch_prefix) changes.push("repository branch_prefix changed");

	const trunkJobs = resolveJobs(trunk);
	const branchJobs = new Map(resolveJobs(branch).map((job) => [job.name, job]));
	for (const before of trunkJobs) {
		const after = branchJobs.get(before.name);
		if (!after) changes.push(`job \`${before.name}\` removed`);
		else if (!same([before.stage, before.commands, before.report], [after.stage, after.commands, after.report])) {
			changes.push(`job \`${before.name}\` changed`);
		} else if (after.timeout !== 0 && (before.timeout === 0 || after.timeout < before.timeout)) changes.push(`job \`${before.name}\` has a shorter timeout`);
	}
	const trunkJobNames = new Set(trunkJobs.map((job) => job.name));
	for (const name of branchJobs.keys()) if (!trunkJobNames.has(name)) changes.push(`job \`${name}\` added`);

	for (const [name, before] of Object.entries(trunk.scopes)) {
		const after = Object.hasOwn(branch.scopes, name) ? branch.scopes[name] : undefined;
		if (!after) changes.push(`scope \`${name}\` removed`);
		else {
			if (!same(before.paths, after.paths)) changes.push(`scope \`${name}\` changed its paths`);
			if ((before.gate ?? "") !== (after.gate ?? "")) changes.push(`scope \`${name}\` changed its gate`);
			if (!before.neutral && after.neutral) changes.push(`scope \`${name}\` became neutral`);
		}
	}
	for (const name of Object.keys(branch.scopes)) if (!Object.hasOwn(trunk.scopes, name)) changes.push(`scope \`${name}\` added`);
	if (trunk.gate.fail_fast !== branch.gate.fail_fast) changes.push("`[gate].fail_fast` changed");

	for (const name of Object.keys(branch.standards)) if (!Object.hasOwn(trunk.standards, name)) changes.push(`standard \`${name}\` added`);

	return changes;
}

/** `pre_authorized adds \`everything\``, `… drops \`docs\``: one phrase per name, in the branch's order. */
function listDelta(changes: string[], label: string, before: readonly string[], after: readonly string[]): void {
	const had = new Set(before);
	const has = new Set(after);
	for (const name of new Set(after)) if (!had.has(name)) changes.push(`${label} adds \`${name}\``);
	for (const name of new Set(before)) if (!has.has(name)) changes.push(`${label} drops \`${name}\``);
}
