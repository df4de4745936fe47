import type { Refusal } from "../contract/envelope.ts";
import type { LockKind } from "../contract/verb.ts";
import type { RepositoryLocation } from "../git/repository.ts";
import { acquireLock, type Lock } from "../platform/lock.ts";
import { writeDenied } from "../platform/write-denied.ts";
import { oneLine } from "../text/terminal.ts";
import { stateLockPath } from "./dir.ts";

/**
 * The locks a verb declares (`lock` in its definition), taken by the
 * invocation pipeline before its core runs: every writer holds its
 * checkout's lock; `start`, `accept` and `prune`, which change what other
 * checkouts see (the trunk, the fleet), also hold the repository's.
 */
export type Locked = { ok: true; lock: Lock } | { ok: false; refusal: Refusal };

export function takeLock(kind: LockKind, repository: RepositoryLocation, verb: string): Locked {
	const checkout = lockAt(repository.gitDir, "lock", verb, "This checkout", "its checkout lock");
	if (kind === "checkout" || !checkout.ok) return checkout;
	const shared = lockAt(repository.commonDir, "repository.lock", verb, "This repository", "the repository lock");
	if (shared.ok)
		return {
			ok: true,
			lock: {
				release: () => {
					shared.lock.release();
					checkout.lock.release();
				},
			},
		};
	checkout.lock.release();
	return shared;
}

/** `<root>/discern/<name>`: its folder made and checked first (state/dir.ts), so a `discern` link is refused here, before any verb writes. */
function lockAt(root: string, name: string, verb: string, what: string, label: string): Locked {
	let outcome: ReturnType<typeof acquireLock>;
	try {
		outcome = acquireLock(stateLockPath(root, name), verb);
	} catch (error) {
		const refusal = writeDenied(error, label);
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
			message: `${what} is busy: ${who} holds its lock. Nothing was changed.`,
			hints: ["Wait for it to finish, then run this again.", "A lock whose process is gone is taken over automatically."],
		},
	};
}
