import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { basename, join } from "node:path";
import type { AnyResult } from "../contract/envelope.ts";
import { stateFolder } from "./dir.ts";

/**
 * The logbook: one JSON line per verb run, in the shared git dir. Metadata
 * only — never file contents, command output, prompts or environment values —
 * so it is safe to keep and to share. Writing it never changes an outcome.
 */
export interface LogbookEntry {
	time: string;
	verb: string;
	surface: "cli" | "mcp";
	outcome: "ok" | "failed";
	error: string | null;
	failed_stage: string | null;
	duration_s: number;
	branch: string | null;
	head: string | null;
	jobs: { label: string; outcome: string; duration_s: number }[];
}

export function logbookPath(commonDir: string, when: Date): string {
	return join(commonDir, "discern", "logbook", `${when.toISOString().slice(0, 7)}.jsonl`);
}

export function entryFor(result: AnyResult, facts: { surface: "cli" | "mcp"; startedAt: Date; branch: string | null; head: string | null }): LogbookEntry {
	const data = result.data as { failed_stage?: unknown } | undefined;
	return {
		time: facts.startedAt.toISOString(),
		verb: result.verb,
		surface: facts.surface,
		outcome: result.ok ? "ok" : "failed",
		error: result.ok ? null : result.error,
		failed_stage: typeof data?.failed_stage === "string" ? data.failed_stage : null,
		duration_s: Math.round((Date.now() - facts.startedAt.getTime()) / 10) / 100,
		branch: facts.branch,
		head: facts.head,
		// Labels, outcomes and durations only: nothing a job printed.
		jobs: (result.steps ?? []).map((step) => ({ label: step.label, outcome: step.outcome, duration_s: step.duration_s })),
	};
}

/** Append one entry; any failure is swallowed (reported on stderr by the caller if it wants). */
export async function appendEntry(commonDir: string, entry: LogbookEntry): Promise<boolean> {
	try {
		// The git dir is the repository's to shape, not a path to follow: a `discern` or logbook folder that is a
		// link is not written through (state/dir.ts checks each folder as it makes it).
		const folder = stateFolder(commonDir, ["logbook"], { create: true }) as string;
		const target = join(folder, basename(logbookPath(commonDir, new Date(entry.time))));
		// One write of one line with O_APPEND: concurrent writers do not interleave. O_NOFOLLOW: a link in
		// the file's place is refused by the kernel.
		const file = await open(target, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
		try {
			await file.write(`${JSON.stringify(entry)}\n`);
		} finally {
			await file.close();
		}
		return true;
	} catch {
		return false;
	}
}
