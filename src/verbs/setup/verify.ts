import type * as v from "valibot";
import { resolveJobs } from "../../config/jobs.ts";
import { CONFIG_FILE, type ConfigIssue } from "../../config/load.ts";
import type { DiscernConfig } from "../../config/schema.ts";
import type { VerbContext } from "../../contract/context.ts";
import { asVerb, fail, ok, type Result } from "../../contract/envelope.ts";
import { ref } from "../../contract/refer.ts";
import { tomlString } from "../../edit/toml-quote.ts";
import { gatePrograms, worktreeSetupHint } from "../../setup/after-setup.ts";
import { jobLine, scopeLine } from "../../setup/render-config.ts";
import { mainCheckoutOf } from "../../worktree/git-worktrees.ts";
import { propose } from "./propose.ts";
import type { SetupData, SetupVerifyInput } from "./schema.ts";

/**
 * `setup verify`: writes nothing. Without discern.toml, the proposal. With
 * one: it must be valid (`invalid_config`), every program its jobs and scope
 * gates start must be here (`checks_failed`), and what setup would propose
 * that it lacks is listed as advice. So it can run in CI.
 */
export async function verifySetup(ctx: VerbContext, input: v.InferOutput<typeof SetupVerifyInput>): Promise<Result<"setup verify", SetupData>> {
	const { say } = ctx;
	const proposed = await propose(ctx, input.agents);
	if (!proposed.ok) return asVerb("setup verify", proposed.refusal);
	const { data, found, root, repository } = proposed;
	// Unadopted is a problem for a check that runs in CI: it fails, with the proposal in `data`.
	const load = proposed.existing;
	if (!load)
		return fail(
			"setup verify",
			"no_project",
			`Not set up yet: there is no ${CONFIG_FILE}. ${found}`,
			[say`Run ${ref("setup", { confirmed: true, ...(input.agents ? { agents: input.agents } : {}) })} to write discern.toml.`],
			{ data },
		);
	if (load.state !== "valid") {
		const issues = load.state === "invalid" ? load.issues : [{ message: `${CONFIG_FILE} could not be read` }];
		const verified = {
			...data,
			verify: {
				config: "invalid" as const,
				issues: issues.map(({ message, line, col }) => ({ message, ...(line !== undefined ? { line } : {}), ...(col !== undefined ? { col } : {}) })),
				programs: [],
				also_proposed: [],
			},
		};
		const count = issues.length === 1 ? "1 problem" : `${issues.length} problems`;
		return fail(
			"setup verify",
			"invalid_config",
			sentence(`${CONFIG_FILE} is invalid (${count}): ${issues.map(issueText).slice(0, 3).join("; ")}${issues.length > 3 ? "; …" : ""}`),
			[say`Fix ${CONFIG_FILE}, then run ${ref("config validate")} to see every problem with its line.`],
			{ data: verified },
		);
	}
	const config = load.config;
	const commands = [
		...resolveJobs(config).flatMap((job) => job.commands.map((command) => ({ owner: job.name, command }))),
		...Object.entries(config.scopes).flatMap(([name, scope]) => (scope.gate ? [{ owner: `scopes.${name}`, command: scope.gate }] : [])),
	];
	const checked = await gatePrograms(root, await mainCheckoutOf(repository), commands, ctx.env);
	const programs = checked.map(({ afterSetup, ...check }) => (afterSetup ? { ...check, after_setup: true as const } : check));
	const alsoProposed = missingFromConfig(data, config);
	const verified: SetupData = { ...data, verify: { config: "valid", issues: [], programs, also_proposed: alsoProposed } };
	const missing = checked.filter((check) => !check.found);
	if (missing.length > 0) {
		const named = missing.map((check) => `\`${check.program}\` (${check.owner})`);
		const hint = missing.some((check) => check.afterSetup)
			? worktreeSetupHint(say, config.worktree.setup, data.installs)
			: "Install the missing tools (or the project's dependencies), or change the commands in discern.toml.";
		return fail(
			"setup verify",
			"checks_failed",
			`${missing.length === 1 ? "A program the gate needs is" : `${missing.length} programs the gate needs are`} missing: ${named.slice(0, 5).join(", ")}${named.length > 5 ? ", …" : ""}.`,
			[hint],
			{ data: verified },
		);
	}
	const advice =
		alsoProposed.length > 0 ? ` Setup would also propose ${alsoProposed.length === 1 ? "one more entry" : `${alsoProposed.length} more entries`}.` : "";
	return ok(
		"setup verify",
		`discern is set up here: ${CONFIG_FILE} is valid and every program its gate starts is here (${programs.length} checked).${advice}`,
		verified,
	);
}

/** Ends with one full stop, not a second one after `?` or `.`. */
function sentence(text: string): string {
	return /[.?!]$/.test(text) ? text : `${text}.`;
}

function issueText(issue: ConfigIssue): string {
	return issue.line !== undefined ? `line ${issue.line}: ${issue.message}` : issue.message;
}

/** Proposed jobs and scopes the config has neither by name nor by command (or paths), installs and seeds it lacks, and the missing .gitignore lines. */
function missingFromConfig(data: SetupData, config: DiscernConfig): NonNullable<SetupData["verify"]>["also_proposed"] {
	const commands = new Set(resolveJobs(config).flatMap((job) => job.commands.map(normalizeCommand)));
	const jobs = data.jobs
		.filter((job) => !Object.hasOwn(config.jobs, job.name) && !commands.has(normalizeCommand(job.run)))
		.map((job) => ({ kind: "job" as const, name: job.name, line: jobLine(job), reason: job.reason }));
	const paths = new Set(Object.values(config.scopes).map((scope) => scope.paths.join("\n")));
	const scopes = data.scopes
		.filter((scope) => !Object.hasOwn(config.scopes, scope.name) && !paths.has(scope.paths.join("\n")))
		.map((scope) => ({
			kind: "scope" as const,
			name: scope.name,
			line: scopeLine(scope),
			reason: scope.reason,
		}));
	const setupCommands = new Set([...config.worktree.setup.steps, ...config.worktree.setup.ensure].map(normalizeCommand));
	const installs = data.installs
		.filter((install) => !setupCommands.has(normalizeCommand(install.run)))
		.map((install) => ({
			kind: "install" as const,
			name: install.run,
			line: `[worktree.setup] ensure = [${tomlString(install.run)}]`,
			reason: install.reason,
		}));
	const seeded = new Set(config.worktree.seed.map((path) => path.replace(/\/+$/, "")));
	const seeds = data.seeds
		.filter((seed) => !seeded.has(seed.path))
		.map((seed) => ({ kind: "seed" as const, name: seed.path, line: `[worktree] seed = [${tomlString(seed.path)}]`, reason: seed.reason }));
	// Not the config's business, yet what its jobs write: the .gitignore lines that are missing.
	const ignores = data.ignores.map((ignore) => ({ kind: "ignore" as const, name: ignore.line, line: ignore.line, reason: ignore.reason }));
	return [...jobs, ...scopes, ...installs, ...seeds, ...ignores];
}

function normalizeCommand(command: string): string {
	return command.trim().replace(/\s+/g, " ");
}
