import type { Diagnostic, Step } from "../contract/envelope.ts";
import type { RunLedger } from "../gate/runner.ts";
import { newRunDir } from "../gate/state.ts";
import { clip } from "../text/clip.ts";
import { runDeclared } from "./declared.ts";
import { EnvFileRefused, type ProcessEnv, worktreeCommandEnv } from "./env.ts";
import { type Ledger, type LedgerEntry, readLedger, removeLedger, writeLedger } from "./ledger.ts";

/** How long one destroy command may run: a hung `dropdb` must not hang a rollback or an accept forever. */
export const DESTROY_TIMEOUT_S = 600;

export interface DestroyOutcome {
	ok: boolean;
	destroyed: string[];
	failed: { name: string; message: string }[];
}

/**
 * Destroy a worktree's resources, last created first, each `destroy` with
 * the environment its `create` had: rebuilt (env.ts `worktreeCommandEnv`)
 * from what the ledger recorded and `env`, discern's own environment (the
 * caller's `ctx.env`, as it is: no worktree values need adding). This is
 * the one way to destroy them, for every caller. recording each
 * outcome in the ledger; the ledger goes once everything is destroyed.
 * Every entry not yet destroyed is attempted: `created`, `creating` (its
 * create may have run in part) and `failed` (an earlier create or destroy
 * failed midway). No ledger: nothing to destroy.
 */
export async function destroyResources(
	commonDir: string,
	id: string,
	options: { cwd: string; env: ProcessEnv; signal: AbortSignal; ledger?: RunLedger },
): Promise<DestroyOutcome> {
	const detailed = await destroyResourcesDetailed(commonDir, id, options);
	return { ok: detailed.ok, destroyed: detailed.destroyed, failed: detailed.failed };
}

/** The same, with each command's step and diagnostics (for a verb's result). */
export async function destroyResourcesDetailed(
	commonDir: string,
	id: string,
	options: { cwd: string; env: ProcessEnv; signal: AbortSignal; timeoutS?: number; ledger?: RunLedger },
): Promise<DestroyOutcome & { steps: Step[]; diagnostics: Diagnostic[] }> {
	const outcome = { ok: true, destroyed: [] as string[], failed: [] as { name: string; message: string }[], steps: [] as Step[], diagnostics: [] as Diagnostic[] };
	let ledger: Ledger | null;
	try {
		ledger = await readLedger(commonDir, id);
	} catch (error) {
		const message = `the resource ledger is unreadable: ${error instanceof Error ? error.message : String(error)}`;
		return { ...outcome, ok: false, failed: [{ name: "(ledger)", message: clip(message, 500) }] };
	}
	if (!ledger) return outcome;
	let env: Record<string, string>;
	try {
		env = ledger.env ? (await worktreeCommandEnv(options.env, ledger.env)).env : legacyEnv(options.env, ledger.id, ledger.worktree);
	} catch (error) {
		if (!(error instanceof EnvFileRefused)) throw error;
		return { ...outcome, ok: false, failed: [{ name: "(env)", message: clip(error.message, 500) }] };
	}
	const logDir = await newRunDir(commonDir, `destroy-${id}`);
	const record = async (entry: LedgerEntry, state: LedgerEntry["state"]) => {
		entry.state = state;
		await writeLedger(commonDir, ledger);
	};
	for (const entry of [...ledger.entries].reverse()) {
		if (entry.state === "destroyed") continue;
		const run = await runDeclared(
			{ label: `destroy ${entry.name}`, kind: "resource", command: entry.destroy },
			{ cwd: options.cwd, env, signal: options.signal, logDir, timeoutS: options.timeoutS ?? DESTROY_TIMEOUT_S, ...(options.ledger ? { ledger: options.ledger } : {}) },
		);
		if (run.step) outcome.steps.push(run.step);
		outcome.diagnostics.push(...run.diagnostics);
		if (run.ok) {
			outcome.destroyed.push(entry.name);
			await record(entry, "destroyed");
		} else {
			const first = run.diagnostics[0];
			const why = run.interrupted ? "interrupted" : (first?.message ?? `destroy ${entry.name} failed`);
			outcome.failed.push({ name: entry.name, message: clip(`${why}${first?.output ? `: ${first.output.trim().split("\n").slice(-3).join(" / ")}` : ""}`, 500) });
			await record(entry, "failed");
		}
	}
	outcome.ok = outcome.failed.length === 0;
	if (outcome.ok) await removeLedger(commonDir, id);
	return outcome;
}

/** A ledger from before the environment was recorded: discern's own environment and the id. */
function legacyEnv(processEnv: ProcessEnv, id: string, dir: string): Record<string, string> {
	const env: Record<string, string> = {};
	for (const [key, value] of Object.entries(processEnv)) if (value !== undefined) env[key] = value;
	return { ...env, DISCERN_ROOT: dir, DISCERN_WORKTREE_ID: id };
}
