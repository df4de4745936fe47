import type { RunFacts } from "../contract/context.ts";
import type { AnyResult } from "../contract/envelope.ts";
import { appendEntry, entryFor } from "./logbook.ts";

/**
 * Log a verb run if it happened inside a repository (the core says so in
 * `facts`; no extra git call). Never throws and never changes the result.
 */
export async function recordInLogbook(result: AnyResult, facts: RunFacts, surface: "cli" | "mcp", startedAt: Date): Promise<void> {
	if (!facts.repository) return;
	try {
		await appendEntry(facts.repository.commonDir, entryFor(result, { surface, startedAt, branch: facts.branch ?? null, head: facts.head ?? null }));
	} catch {
		// A logbook that cannot be written is not the caller's problem.
	}
}
