import type { AnyResult } from "../contract/envelope.ts";
import type { RepositoryLocation } from "../git/repository.ts";
import { appendEntry, entryFor } from "./logbook.ts";

/**
 * Log a verb run if it happened inside a repository (the pipeline located
 * it; no extra git call). Never throws and never changes the result.
 */
export async function recordInLogbook(
	result: AnyResult,
	repository: RepositoryLocation | undefined,
	facts: { surface: "cli" | "mcp"; startedAt: Date; branch: string | null; head: string | null },
): Promise<void> {
	if (!repository) return;
	try {
		await appendEntry(repository.commonDir, entryFor(result, { ...facts, head: facts.head?.slice(0, 7) ?? null }));
	} catch {
		// A logbook that cannot be written is not the caller's problem.
	}
}
