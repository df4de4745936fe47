import { join } from "node:path";
import type { Refusal } from "../contract/envelope.ts";
import type { RepositoryLocation } from "../git/repository.ts";
import { acquireLock, type Lock } from "../platform/lock.ts";
import { oneLine } from "../text/terminal.ts";
import { stateDir } from "./state.ts";
import { writeDenied } from "./write-denied.ts";

/** The per-checkout lock every gate verb holds while it runs. */
export function lockCheckout(repository: RepositoryLocation, verb: string): { ok: true; lock: Lock } | { ok: false; refusal: Refusal } {
	let outcome: ReturnType<typeof acquireLock>;
	try {
		outcome = acquireLock(join(stateDir(repository.gitDir), "lock"), verb);
	} catch (error) {
		const refusal = writeDenied(error, "its checkout lock");
		if (refusal) return { ok: false, refusal };
		throw error;
	}
	if (outcome.ok) return outcome;
	const holder = outcome.holder;
	// The lock file is anyone's to write: its words are shown cleaned.
	const who = holder ? `discern's \`${oneLine(holder.verb)}\` (pid ${holder.pid}, since ${oneLine(holder.since)})` : "another discern run";
	return {
		ok: false,
		refusal: {
			error: "locked",
			message: `This checkout is busy: ${who} holds its lock. Nothing was changed.`,
			hints: ["Wait for it to finish, then run this again.", "A lock whose process is gone is taken over automatically."],
		},
	};
}
