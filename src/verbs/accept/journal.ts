import * as v from "valibot";
import type { Refusal } from "../../contract/envelope.ts";
import { isRecord } from "../../contract/record.ts";
import { writeDenied } from "../../platform/write-denied.ts";
import { sealHolds, sealOf } from "../../proof/seal.ts";
import { listStateFolder, readStateFile, removeStateFile, writeStateFile } from "../../state/dir.ts";

/**
 * What an accept has done so far, in the shared git dir
 * (`<commonDir>/discern/accept/<branch>.json`): written before the trunk
 * moves and after each later step, so that running accept again finishes
 * an interrupted one and never lands twice. It is sealed as a Proof is
 * (proof/seal.ts): the note it leads to carries its Proof record, so a
 * journal written by hand is no journal, and no note is written from it.
 */
export const STEPS = ["landed", "checkout_moved", "noted", "resources_destroyed", "worktree_removed", "branch_deleted"] as const;
export type AcceptStep = (typeof STEPS)[number];

export const Journal = v.object({
	version: v.literal(1),
	/** "landing" is written before the compare-and-swap: whether it happened is read back from the trunk. */
	state: v.picklist(["landing", "landed"]),
	branch: v.string(),
	id: v.nullable(v.string()),
	path: v.string(),
	trunk: v.string(),
	sha: v.string(),
	previous_trunk_sha: v.string(),
	proof_line: v.string(),
	/** The Proof record, for the note. */
	proof: v.unknown(),
	/** A checkout on the trunk whose files move with it (absolute path), or null. */
	checkout: v.nullable(v.string()),
	consent: v.picklist(["confirmed", "pre_authorized", "asked"]),
	done: v.array(v.picklist(STEPS)),
	destroyed: v.array(v.string()),
	/** The destroy commands started (pid and start time): while one still runs, no second destroy starts. */
	destroying: v.optional(v.array(v.object({ pid: v.number(), started: v.string() }))),
	/**
	 * The folders a landing through `checkout` makes (absent before it): a later
	 * accept that finds the landing killed halfway removes them once empty.
	 */
	landing_new_folders: v.optional(v.array(v.string())),
	/** The landing's git (pid and start time): once it no longer runs, the index lock it left is stale. */
	landing_git: v.optional(v.object({ pid: v.number(), started: v.string() })),
	time: v.string(),
});
export type Journal = v.InferOutput<typeof Journal>;

/** `<common dir>/discern/accept/`, reached through no link (state/dir.ts). */
const FOLDER = "accept";

/** A file name for a branch: every character outside a safe set escaped, so `/` and `..` stay inside the folder. */
export function journalName(branch: string): string {
	return `${encodeURIComponent(branch).replaceAll(".", "%2E")}.json`;
}

/**
 * What the seal covers: the journal's JSON, marked as a journal's so that no other sealed record reads
 * as one, and the file it was written to, so that a journal copied to another branch's name is none.
 */
function sealed(name: string, content: string): string {
	return `accept-journal\n${name}\n${content}`;
}

export async function readJournal(commonDir: string, branch: string): Promise<Journal | null> {
	return readSealed(commonDir, journalName(branch));
}

export async function readJournals(commonDir: string): Promise<Journal[]> {
	const names = listStateFolder(commonDir, [FOLDER]);
	const journals = await Promise.all(names.filter((name) => name.endsWith(".json")).map((name) => readSealed(commonDir, name)));
	return journals.filter((journal): journal is Journal => journal !== null);
}

/** A journal whose seal holds; null for none, a broken one, or one written by hand. */
async function readSealed(commonDir: string, name: string): Promise<Journal | null> {
	let raw: unknown;
	try {
		raw = JSON.parse(readStateFile(commonDir, `${FOLDER}/${name}`) ?? "null");
	} catch {
		return null;
	}
	if (!isRecord(raw)) return null;
	const { seal, ...journal } = raw;
	if (!(await sealHolds(commonDir, sealed(name, JSON.stringify(journal)), seal))) return null;
	const parsed = v.safeParse(Journal, journal);
	return parsed.success ? parsed.output : null;
}

export async function writeJournal(commonDir: string, journal: Journal): Promise<void> {
	const name = journalName(journal.branch);
	const seal = await sealOf(commonDir, sealed(name, JSON.stringify(journal)), { create: true });
	await writeStateFile(commonDir, `${FOLDER}/${name}`, `${JSON.stringify({ ...journal, seal }, null, 2)}\n`);
}

export async function removeJournal(commonDir: string, branch: string): Promise<void> {
	removeStateFile(commonDir, `${FOLDER}/${journalName(branch)}`);
}

/** A file system error on the journal (something blocking `.git/discern/accept`) as `write_denied`; other errors stay bugs. */
export async function journalWrite(write: () => Promise<void>): Promise<Refusal | null> {
	try {
		await write();
		return null;
	} catch (error) {
		const refusal = writeDenied(error, "the accept journal");
		if (refusal) return { ...refusal, message: `${refusal.message} Nothing landed.` };
		throw error;
	}
}
