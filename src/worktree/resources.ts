import { realpath } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { parseConfig } from "../config/load.ts";
import type { DiscernConfig } from "../config/schema.ts";
import type { Diagnostic, Step } from "../contract/envelope.ts";
import { git } from "../git/run.ts";
import { newRunDir } from "../jobs/run-folders.ts";
import type { RunLedger } from "../jobs/runner.ts";
import { clip } from "../text/clip.ts";
import { firstNonBlankLine } from "../text/first-line.ts";
import { runDeclared } from "./declared.ts";
import { EnvFileRefused, type ProcessEnv, worktreeCommandEnv } from "./env.ts";
import { listWorktrees } from "./git-worktrees.ts";
import { worktreePort } from "./id.ts";
import { type Ledger, type LedgerEntry, readLedger, removeLedger, writeLedger } from "./ledger.ts";
import { readTask } from "./task.ts";
import { expandTokens, tokenTable, unknownTokens } from "./tokens.ts";

/** How long one destroy command may run: a hung `dropdb` must not hang a rollback or an accept forever. */
export const DESTROY_TIMEOUT_S = 600;

export interface DestroyOutcome {
	ok: boolean;
	destroyed: string[];
	failed: { name: string; message: string }[];
}

export interface DestroyOptions {
	cwd: string;
	env: ProcessEnv;
	signal: AbortSignal;
	/**
	 * The worktree being torn down (its path; the folder may be gone). The
	 * ledger must name this same worktree, and no other worktree may claim
	 * the task id: nothing in a worktree's admin dir can point a destroy at
	 * another worktree's resources.
	 */
	worktree: string;
	/**
	 * The configuration the caller itself just created the resources from
	 * (`start`'s rollback). Otherwise the main checkout's committed
	 * discern.toml (`git show HEAD:discern.toml`) declares the commands.
	 */
	config?: DiscernConfig;
	timeoutS?: number;
	ledger?: RunLedger;
}

/**
 * Destroy a worktree's resources, last created first. The ledger is an
 * unsigned file anything in a worktree can edit, so it supplies names,
 * states and facts only: each `destroy` command is the one discern.toml
 * declares for that name (the main checkout's committed copy), its tokens
 * expanded from the ledger's id and worktree path, run with the
 * environment rebuilt (env.ts `worktreeCommandEnv`) from the same
 * configuration's `inherit_env` and `env_files` and `env`, discern's own
 * environment. A command text is never read from the ledger. A resource
 * whose name is no longer declared is not destroyed: it is reported, for
 * a person to remove by hand. This is the one way to destroy them, for
 * every caller, recording each outcome in the ledger; the ledger goes once
 * everything is destroyed. Every entry not yet destroyed is attempted:
 * `created`, `creating` (its create may have run in part) and `failed`.
 * No ledger: nothing to destroy.
 */
export async function destroyResources(commonDir: string, id: string, options: DestroyOptions): Promise<DestroyOutcome> {
	const detailed = await destroyResourcesDetailed(commonDir, id, options);
	return { ok: detailed.ok, destroyed: detailed.destroyed, failed: detailed.failed };
}

/** One ledger entry's destroy, as discern would run it now: the command, or why there is none. */
export interface PlannedDestroy {
	entry: LedgerEntry;
	command: string | null;
	problem: string | null;
}

type Prepared =
	| {
			ok: true;
			ledger: Ledger;
			planned: PlannedDestroy[];
			spec: { main_root: string; env_files: string[]; inherit_env: string[]; id: string; port: number; dir: string };
	  }
	| { ok: false; failure: { name: string; message: string } }
	| { ok: true; ledger: null };

/** The ledger, checked against the worktrees that exist, and each entry's declared destroy command. */
export async function planDestroys(commonDir: string, id: string, options: Pick<DestroyOptions, "cwd" | "worktree" | "config">): Promise<Prepared> {
	const refuse = (name: string, message: string): Prepared => ({ ok: false, failure: { name, message: clip(message, 500) } });
	let ledger: Ledger | null;
	try {
		ledger = await readLedger(commonDir, id);
	} catch (error) {
		return refuse("(ledger)", `the resource ledger is unreadable: ${error instanceof Error ? error.message : String(error)}`);
	}
	if (!ledger) return { ok: true, ledger: null };
	if (ledger.id !== id) return refuse("(ledger)", `the resource ledger of ${id} names the task id ${JSON.stringify(ledger.id)}: nothing was destroyed`);
	const [ledgerPath, wanted] = await Promise.all([canonical(ledger.worktree), canonical(options.worktree)]);
	if (ledgerPath !== wanted)
		return refuse("(ledger)", `the resource ledger of ${id} belongs to the worktree ${ledger.worktree}, not ${options.worktree}: nothing was destroyed`);
	const listed = await listWorktrees(options.cwd, commonDir);
	if (!listed) return refuse("(ledger)", "git could not list the worktrees, so discern cannot tell which one owns these resources");
	const claims: string[] = [];
	for (const worktree of listed) {
		if (worktree.bare || !worktree.gitDir) continue;
		const task = await readTask(worktree.gitDir);
		const path = await canonical(worktree.path);
		if (task?.id === id) claims.push(worktree.path);
		else if (path === ledgerPath)
			return refuse(
				"(ledger)",
				`the worktree at ${worktree.path} is not the task ${id} (its task record says ${task ? JSON.stringify(task.id) : "nothing"}): nothing was destroyed`,
			);
	}
	if (claims.length > 1)
		return refuse(
			"(ledger)",
			`${claims.length} worktrees claim the task id ${id} (${claims.join(", ")}): which one owns its resources is ambiguous, so nothing was destroyed`,
		);
	const claimed = claims[0];
	if (claimed !== undefined && (await canonical(claimed)) !== ledgerPath)
		return refuse("(ledger)", `the worktree claiming the task id ${id} is ${claimed}, but its ledger names ${ledger.worktree}: nothing was destroyed`);
	const mainRoot = listed.find((worktree) => worktree.main)?.path;
	if (!mainRoot) return refuse("(ledger)", "git does not name the main checkout");
	let config = options.config;
	if (!config) {
		const committed = await git(["show", "HEAD:discern.toml"], mainRoot);
		if (committed.exitCode !== 0)
			return refuse(
				"(config)",
				`the main checkout's committed discern.toml cannot be read (${clip(firstNonBlankLine(committed.stderr) ?? "", 200)}): only commands it declares are run, so remove the resources by hand`,
			);
		const parsed = parseConfig(committed.stdout);
		if (!parsed.ok)
			return refuse(
				"(config)",
				`the main checkout's committed discern.toml is invalid (${clip(parsed.issues.map((issue) => issue.message).join("; "), 200)}): only commands it declares are run`,
			);
		config = parsed.config;
	}
	const port = worktreePort(id);
	const table = tokenTable({ id, port, projectName: config.project.name, repositoryRoot: mainRoot, dir: ledger.worktree });
	const planned = ledger.entries.map((entry): PlannedDestroy => {
		const declared = Object.hasOwn(config.worktree.resources, entry.name) ? config.worktree.resources[entry.name] : undefined;
		if (!declared)
			return {
				entry,
				command: null,
				problem: `[worktree.resources.${entry.name}] is no longer declared in the main checkout's committed discern.toml, so discern will not run anything for it: remove it by hand`,
			};
		const unknown = unknownTokens(declared.destroy);
		if (unknown.length > 0)
			return {
				entry,
				command: null,
				problem: `its destroy command uses tokens discern does not know (${unknown.map((token) => `@${token}@`).join(", ")}): remove it by hand`,
			};
		return { entry, command: expandTokens(declared.destroy, table), problem: null };
	});
	const spec = {
		main_root: mainRoot,
		env_files: [...config.worktree.env_files],
		inherit_env: [...config.worktree.inherit_env],
		id,
		port,
		dir: ledger.worktree,
	};
	return { ok: true, ledger, planned, spec };
}

/** The same, with each command's step and diagnostics (for a verb's result). */
export async function destroyResourcesDetailed(
	commonDir: string,
	id: string,
	options: DestroyOptions,
): Promise<DestroyOutcome & { steps: Step[]; diagnostics: Diagnostic[] }> {
	const outcome = {
		ok: true,
		destroyed: [] as string[],
		failed: [] as { name: string; message: string }[],
		steps: [] as Step[],
		diagnostics: [] as Diagnostic[],
	};
	const prepared = await planDestroys(commonDir, id, options);
	if (!prepared.ok) return { ...outcome, ok: false, failed: [prepared.failure] };
	if (!prepared.ledger) return outcome;
	const { ledger, planned, spec } = prepared;
	let env: Record<string, string>;
	try {
		env = (await worktreeCommandEnv(options.env, spec)).env;
	} catch (error) {
		if (!(error instanceof EnvFileRefused)) throw error;
		return { ...outcome, ok: false, failed: [{ name: "(env)", message: clip(error.message, 500) }] };
	}
	const logDir = await newRunDir(commonDir, `destroy-${id}`);
	const record = async (entry: LedgerEntry, state: LedgerEntry["state"]) => {
		entry.state = state;
		await writeLedger(commonDir, ledger);
	};
	for (const { entry, command, problem } of [...planned].reverse()) {
		if (entry.state === "destroyed") continue;
		if (command === null) {
			outcome.failed.push({ name: entry.name, message: clip(problem ?? "no declared destroy command", 500) });
			continue;
		}
		const run = await runDeclared(
			{ label: `destroy ${entry.name}`, kind: "resource", command },
			{
				cwd: options.cwd,
				env,
				signal: options.signal,
				logDir,
				timeoutS: options.timeoutS ?? DESTROY_TIMEOUT_S,
				...(options.ledger ? { ledger: options.ledger } : {}),
			},
		);
		if (run.step) outcome.steps.push(run.step);
		outcome.diagnostics.push(...run.diagnostics);
		if (run.ok) {
			outcome.destroyed.push(entry.name);
			await record(entry, "destroyed");
		} else {
			const first = run.diagnostics[0];
			const why = run.interrupted ? "interrupted" : (first?.message ?? `destroy ${entry.name} failed`);
			outcome.failed.push({
				name: entry.name,
				message: clip(`${why}${first?.output ? `: ${first.output.trim().split("\n").slice(-3).join(" / ")}` : ""}`, 500),
			});
			await record(entry, "failed");
		}
	}
	outcome.ok = outcome.failed.length === 0;
	if (outcome.ok) await removeLedger(commonDir, id);
	return outcome;
}

/** A path with its symlinks resolved, as far as it exists (a gone worktree's folder: its parent's). */
export async function canonical(path: string): Promise<string> {
	const full = resolve(path);
	const real = await realpath(full).catch(() => null);
	if (real) return real;
	const parent = await realpath(dirname(full)).catch(() => null);
	return parent ? join(parent, basename(full)) : full;
}
