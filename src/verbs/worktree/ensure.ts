import type * as v from "valibot";
import { openProject } from "../../config/open-project.ts";
import type { VerbContext } from "../../contract/context.ts";
import { asVerb, type Diagnostic, fail, ok, type Result, type Step } from "../../contract/envelope.ts";
import { ref } from "../../contract/refer.ts";
import { newRunDir } from "../../jobs/run-folders.ts";
import { clip } from "../../text/clip.ts";
import { plural } from "../../text/plural.ts";
import { oneLine } from "../../text/terminal.ts";
import { runDeclared } from "../../worktree/declared.ts";
import { checkoutCommandEnv, EnvFileRefused } from "../../worktree/env.ts";
import { readTask } from "../../worktree/task.ts";
import type { WorktreeEnsureData, WorktreeEnsureInput } from "./schema.ts";

type EnsureResult = Result<"worktree ensure", WorktreeEnsureData>;

/**
 * `worktree ensure`: the `[worktree].setup.ensure` commands again, in this
 * worktree, through the gate's runner, with the env values `start` gave
 * them. They are meant to be idempotent (install dependencies, apply
 * migrations); the first failure stops. In the main checkout it runs nothing
 * unless the person passes --main-checkout: an agent's session-start hook
 * runs this verb there too, and the main checkout's installed dependencies
 * are the person's (`npm ci` deletes node_modules before it installs, a
 * linked or patched package with it; `uv sync` removes what they added to
 * .venv), at every session.
 */
export async function worktreeEnsure(ctx: VerbContext, input: v.InferOutput<typeof WorktreeEnsureInput>): Promise<EnsureResult> {
	const { say } = ctx;
	const opened = await openProject(ctx);
	if (!opened.ok) return asVerb("worktree ensure", opened.refusal);
	const { repository, config } = opened;
	const task = repository.location === "worktree" ? await readTask(repository.gitDir) : null;
	const mainCheckout = repository.location === "main";
	const data: WorktreeEnsureData = { id: task?.id ?? null, path: repository.root, ran: 0, main_checkout: mainCheckout };
	const commands = config.worktree.setup.ensure.map((command, index) => ({ label: `ensure ${index + 1}`, kind: "ensure" as const, command }));
	if (commands.length === 0) return ok("worktree ensure", "discern.toml declares no [worktree.setup] ensure commands; nothing to run.", data);
	if (mainCheckout && !input.main_checkout) {
		const said =
			"Nothing ran: the main checkout is yours: discern runs [worktree.setup] only in the task worktrees it starts; run the install yourself when you want it.";
		const anyway = say`To run [worktree.setup].ensure here anyway, run ${ref("worktree ensure", { main_checkout: true })}.`;
		// A dry run's plan lists each command as skipped, for the same reason.
		const plan = commands.map((command) => ({ kind: command.kind, label: command.label, disposition: "skip" as const, note: command.command }));
		return ok("worktree ensure", said, data, { ...(input.dry_run ? { dry_run: true, plan } : {}), hints: [anyway] });
	}
	if (input.dry_run) {
		return ok("worktree ensure", `Would run ${plural(commands.length, "ensure command")}; nothing ran.`, data, {
			dry_run: true,
			plan: commands.map((command) => ({ kind: command.kind, label: command.label, disposition: "run" as const, note: command.command })),
		});
	}
	let env: Record<string, string>;
	try {
		env = await checkoutCommandEnv(ctx.env, repository, config.worktree, task?.id ?? null);
	} catch (error) {
		if (error instanceof EnvFileRefused)
			return fail(
				"worktree ensure",
				"invalid_config",
				`${error.message}.`,
				[say`Fix [worktree].env_files in discern.toml, then run ${ref("worktree ensure")} again.`],
				{ data },
			);
		throw error;
	}
	const logDir = await newRunDir(repository.gitDir, "ensure");
	const options = { cwd: repository.root, env, signal: ctx.signal, logDir, timeoutS: config.gate.timeout, ...(ctx.progress ? { onEvent: ctx.progress } : {}) };
	const steps: Step[] = [];
	const diagnostics: Diagnostic[] = [];
	for (const command of commands) {
		const ran = await runDeclared(command, options);
		if (ran.step) steps.push(ran.step);
		diagnostics.push(...ran.diagnostics);
		data.ran++;
		if (ran.interrupted)
			return fail("worktree ensure", "interrupted", "The ensure commands were interrupted.", [say`Run ${ref("worktree ensure")} again.`], {
				data,
				steps,
				diagnostics,
			});
		if (!ran.ok) {
			return fail(
				"worktree ensure",
				"gate_failed",
				`The setup.ensure command \`${clip(oneLine(command.command), 200)}\` failed.`,
				[say`Fix what the diagnostics show, then run ${ref("worktree ensure")} again.`],
				{ data, steps, diagnostics },
			);
		}
	}
	return ok("worktree ensure", `Ran ${plural(commands.length, "ensure command")}.`, data, { steps });
}
