import { ref, type Say } from "../contract/refer.ts";
import { tomlString } from "../edit/toml-quote.ts";
import { checkCommand, type ProgramCheck } from "./programs.ts";

/**
 * The programs a gate's commands start, looked up in this checkout, telling
 * apart the ones only a worktree's setup would bring (issue 22, item 1): in a
 * linked worktree, `tsc` missing from node_modules/.bin while the main
 * checkout has it means the worktree's dependencies were never installed, not
 * that the project lacks the tool. `doctor` and `setup verify` both say so,
 * and name the `[worktree.setup]` commands that install them.
 */

/** Where an install puts the programs it brings: node_modules/.bin, a project's virtualenv. */
const INSTALLED = /(^|\/)(node_modules\/\.bin|\.venv\/bin|venv\/bin)\/[^/]+$/;

export interface GateProgram extends ProgramCheck {
	/** Missing here, found in the main checkout: it arrives once the worktree's setup has run. */
	afterSetup?: true;
}

/**
 * Each command's programs, in `root`; `mainRoot` is the main checkout when
 * `root` is a linked worktree of it (null or `root` itself: no comparison).
 */
export async function gatePrograms(
	root: string,
	mainRoot: string | null,
	commands: ReadonlyArray<{ owner: string; command: string }>,
	env: Readonly<Record<string, string | undefined>>,
): Promise<GateProgram[]> {
	const checked = await Promise.all(
		commands.map(async ({ owner, command }): Promise<GateProgram[]> => {
			const here = await checkCommand(root, owner, command, env);
			if (mainRoot === null || mainRoot === root || here.every((check) => check.found)) return here;
			// Only what an install puts in place (node_modules/.bin, a virtualenv): a build's output, found there, is the build's to make.
			const installed = (await checkCommand(mainRoot, owner, command, env)).filter((check) => check.found && INSTALLED.test(check.detail));
			const there = new Map(installed.map((check) => [check.program, check.detail]));
			return here.map((check) => {
				const found = check.found ? undefined : there.get(check.program);
				if (found === undefined) return check;
				return {
					...check,
					afterSetup: true as const,
					detail: `not installed in this worktree yet, though the main checkout has it (${found}): the worktree's dependencies are not installed`,
				};
			});
		}),
	);
	return checked.flat();
}

/**
 * What to do when a program arrives only with the worktree's setup: run
 * the declared ensure commands here; run the declared steps by hand; or,
 * when discern.toml declares neither, declare the install (setup's
 * proposal for this project, when there is one). Every verb it names
 * follows "run", which reads as the owner's part over MCP where the verb
 * is the CLI's alone (contract/refer.ts).
 */
export function worktreeSetupHint(say: Say, setup: { steps: readonly string[]; ensure: readonly string[] }, proposed: ReadonlyArray<{ run: string }>): string {
	if (setup.ensure.length > 0) return say`Run ${ref("worktree ensure")} here: it runs [worktree.setup].ensure (${listed(setup.ensure)}), which installs them.`;
	if (setup.steps.length > 0)
		return say`Run the [worktree.setup] steps here by hand (${listed(setup.steps)}): they run only when a worktree starts. Declared under ensure, the install would also run when you run ${ref("worktree ensure")}.`;
	const install = proposed[0]?.run;
	const declare = install
		? `add \`ensure = [${tomlString(install)}]\` under it (setup's proposal here)`
		: `add the project's install under it as \`ensure = ["…"]\``;
	return say`discern.toml declares no [worktree.setup], so this worktree has no dependencies: ${declare}, then run ${ref("worktree ensure")}.`;
}

function listed(commands: readonly string[]): string {
	return commands.map((command) => `\`${command}\``).join(", ");
}
