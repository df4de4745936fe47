import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseConfig } from "../config/load.ts";
import type { DiscernConfig } from "../config/schema.ts";
import { type ObjectReader, openObjectReader } from "../git/object-reader.ts";
import { type BranchClues, decideTrunk, readBranchClues, readInitDefault, type Trunk, trunkNamed } from "../git/trunk.ts";
import { readCommittedConfig } from "../proof/committed-config.ts";
import { clip } from "../text/clip.ts";
import { type TrunkCandidate, type TrunkVote, trunkCandidates } from "./candidates.ts";

/**
 * The trunk, for every verb: the one place discern decides which branch work
 * lands on. Nothing else reads origin/HEAD, init.defaultBranch or
 * `[repository].trunk` to name a trunk. The order, first answer wins:
 *
 * 1. `DISCERN_TRUNK`: the person's word for this process.
 * 2. The committed `[repository].trunk`: what the discern.toml committed on
 *    the branches git points at says. Those branches (the branch the main
 *    checkout has checked out, `main`, `master`, origin/HEAD's target, the
 *    ones that exist) each have their committed discern.toml read; each
 *    `[repository].trunk` found is a vote. The main checkout's branch votes
 *    when a linked worktree asks (in the main checkout it is the branch being
 *    judged, never its own judge), so that a trunk with another name
 *    (`develop`) is heard beside a decoy `main` an agent made; `accept` lands
 *    nothing while votes disagree. One name
 *    voted for is the trunk. Several (a decoy that names itself beside the
 *    real trunk) are a contest: the one this checkout's discern.toml also
 *    names wins, else the first in that order, and the result lists the
 *    others in `contested`. A trunk only origin/HEAD's branch voted for,
 *    beside a `main` or `master`, keeps the source `origin_head`, so that
 *    `done` says where it came from.
 * 3. Git's own clues, when no committed discern.toml names a trunk:
 *    origin/HEAD, init.defaultBranch, an existing `main` or `master`.
 * 4. This checkout's `[repository].trunk` when nothing else names a trunk
 *    with a committed discern.toml (before discern.toml is committed
 *    anywhere): `namedByBranch` says so.
 *
 * origin/HEAD and init.defaultBranch are files an agent can write, and a
 * branch's own discern.toml is what `done` judges, so none of them alone
 * picks the trunk while a committed discern.toml names one; this
 * checkout's config only breaks a tie, never adds a vote (a branch naming
 * itself the trunk would otherwise be its own judge). Verbs that commit
 * refuse on every branch any of these names (see candidates.ts), whichever
 * wins here.
 */
export interface ResolvedTrunk {
	trunk: Trunk;
	/** The trunk's committed discern.toml, when it can be read. */
	config: DiscernConfig | null;
	/** Why the trunk's config could not be read (the never-loosen check is then skipped, loudly). */
	unreadable?: string;
	/** True when the trunk commits a discern.toml that does not validate: its standards cannot be compared, whatever the branch declares. */
	invalid?: boolean;
	/** Set when git could not read the trunk's commit or its discern.toml: nothing may be judged against it. */
	failed?: string;
	/** True when only this checkout's own config named the trunk. */
	namedByBranch: boolean;
	/** Other trunks that committed discern.tomls name (branch → the trunk its discern.toml names), when they disagree. */
	contested: TrunkVote[];
	/**
	 * The person's side names this trunk: DISCERN_TRUNK, the main checkout has it checked out, or the discern.toml
	 * committed on the main checkout's branch names it. Not when only files an agent can make decided it (origin/HEAD,
	 * init.defaultBranch, a branch naming itself): pre-authorized scopes then grant nothing (accept asks).
	 */
	personNamed: boolean;
	/** Every branch anything above names as the trunk, the winner first: a verb that commits refuses on each (candidates.ts). Read on demand (it asks git for init.defaultBranch). */
	candidates: () => Promise<TrunkCandidate[]>;
}

export interface TrunkReads {
	/** The branch list, when a caller started it already. */
	branches?: Promise<BranchClues>;
	/** init.defaultBranch, when a caller started it already. */
	initDefault?: Promise<string | null>;
	/** An open object reader to read the committed discern.tomls through. */
	reader?: ObjectReader;
	/**
	 * Where the checkout's git dirs are, when the caller knows them: the shared dir's HEAD is the main checkout's branch,
	 * a voter, and what `personNamed` is judged by. Without them that branch does not vote.
	 */
	location?: { gitDir: string; commonDir: string };
}

interface CommittedRead {
	config: DiscernConfig | null;
	reason?: string;
	invalid?: boolean;
	failed?: boolean;
}

/** The names a trunk usually has: a branch of one of them is a voter whatever points at it. */
const USUAL = ["main", "master"];

export async function resolveTrunk(root: string, configured: string | undefined, fromEnv: string | undefined, early: TrunkReads = {}): Promise<ResolvedTrunk> {
	// The object reader starts beside the branch list (a repository almost always has a main or master to read): its process
	// start overlaps the list's instead of following it. Not with DISCERN_TRUNK, whose answer reads at most one discern.toml.
	let ownReader: ObjectReader | undefined = fromEnv || early.reader ? undefined : openObjectReader(root);
	const clues = await (early.branches ?? readBranchClues(root)).catch(async (error: unknown) => {
		await ownReader?.close();
		throw error;
	});
	// init.defaultBranch is asked only when the answer needs it (git's clues, or every candidate): each git call is a process start.
	let initRead: Promise<string | null> | undefined = early.initDefault;
	const initDefault = () => {
		initRead ??= readInitDefault(root);
		return initRead;
	};
	// Else opened on the first discern.toml to read; closed before the answer.
	const reader = () => {
		if (early.reader) return early.reader;
		ownReader ??= openObjectReader(root);
		return ownReader;
	};
	// One read per commit, whichever names lead to it.
	const reads = new Map<string, Promise<CommittedRead>>();
	const read = (trunk: Trunk): Promise<CommittedRead> | null => {
		if (!trunk.sha) return null;
		let started = reads.get(trunk.sha);
		if (!started) {
			started = committedConfig(root, trunk, reader());
			reads.set(trunk.sha, started);
		}
		return started;
	};
	let votes: TrunkVote[] = [];
	let mainBranch: string | null = null;
	const personNames = (name: string | null, source: Trunk["source"]) =>
		name !== null && (source === "env" || name === mainBranch || votes.some((vote) => vote.branch === mainBranch && vote.names === name));
	const finish = async (trunk: Trunk, namedByBranch: boolean, contested: TrunkVote[]): Promise<ResolvedTrunk> => {
		const committed = trunk.exists ? await read(trunk) : null;
		let listed: Promise<TrunkCandidate[]> | undefined;
		const candidates = () => {
			listed ??= initDefault().then((init) =>
				trunkCandidates({ trunk: trunk.name, votes, originHead: clues.originHead, initDefault: init, configured, fromEnv }),
			);
			return listed;
		};
		const personNamed = personNames(trunk.name, trunk.source);
		if (committed?.config) return { trunk, config: committed.config, namedByBranch, contested, candidates, personNamed };
		return {
			trunk,
			candidates,
			personNamed,
			config: null,
			unreadable: committed?.reason ?? (trunk.name ? `the trunk \`${clip(trunk.name)}\` does not exist` : "there is no trunk branch to compare with"),
			namedByBranch,
			contested,
			...(committed?.invalid ? { invalid: true } : {}),
			...(committed?.failed ? { failed: committed.reason ?? "git could not read the trunk" } : {}),
		};
	};
	try {
		// 1. The person's word.
		if (fromEnv) return await finish(trunkNamed(clues, fromEnv, "env"), false, []);

		// 2. The votes of the committed discern.tomls on the branches git points at.
		// The main checkout's branch, main and master first: in a contest this checkout does not settle, a file in .git
		// (origin/HEAD) does not get the first word.
		mainBranch = early.location ? await mainCheckoutBranch(early.location.commonDir) : null;
		// The main checkout's branch votes only when a linked worktree asks: in the main checkout it is the branch being
		// judged, and a branch naming itself the trunk there (an agent's branch checked out to run done) would be its own judge.
		const judgedHere = early.location !== undefined && early.location.gitDir === early.location.commonDir;
		const voters = [judgedHere ? null : mainBranch, ...USUAL, clues.originHead]
			.filter((name, index, all): name is string => name !== null && all.indexOf(name) === index && clues.localBranches.has(name))
			.map((name) => trunkNamed(clues, name, "config"));
		const ballots = await Promise.all(voters.map(async (voter) => ({ voter, read: await read(voter) })));
		// A discern.toml git could not read is an unknown vote, never an abstention: it might have named another trunk.
		const unread = ballots.find((ballot) => ballot.read?.failed);
		if (unread) return await finish(unread.voter, false, []);
		votes = ballots.flatMap(({ voter, read: committed }) => {
			const names = committed?.config?.repository.trunk;
			return names && voter.name ? [{ branch: voter.name, names }] : [];
		});
		const named = [...new Set(votes.map((vote) => vote.names))];
		if (named.length > 0) {
			const winner = configured && named.includes(configured) ? configured : (named[0] as string);
			const contested = named.length > 1 ? votes.filter((vote) => vote.names !== winner) : [];
			// Named only by the discern.toml of the branch origin/HEAD points at, beside a `main` or `master`: origin/HEAD led there,
			// and the result says so as it does for origin/HEAD itself (done's warning), since an agent can point it at its own branch.
			const onlyOriginHead = votes.filter((vote) => vote.names === winner).every((vote) => vote.branch === clues.originHead && !USUAL.includes(vote.branch));
			return await finish(trunkNamed(clues, winner, onlyOriginHead ? "origin_head" : "config"), false, contested);
		}

		// 3. git's clues; 4. this checkout's own word when no clue has a committed discern.toml to stand on.
		const clue = decideTrunk({ ...clues, initDefault: clues.originHead ? null : await initDefault() });
		const clueRead = clue.exists ? await read(clue) : null;
		if (configured && configured !== clue.name && !clueRead?.failed && !clueRead?.config && !clueRead?.invalid) {
			return await finish(trunkNamed(clues, configured, "config"), true, []);
		}
		return await finish(clue, false, []);
	} finally {
		await ownReader?.close();
	}
}

/**
 * The branch the main checkout has checked out (its HEAD in the shared git
 * dir), or null when it is detached or cannot be read. A file an agent can
 * write too, like every ref: it adds a voter, never decides alone.
 */
async function mainCheckoutBranch(commonDir: string): Promise<string | null> {
	const head = await readFile(join(commonDir, "HEAD"), "utf8").catch(() => "");
	const match = /^ref: refs\/heads\/(.+)\n?$/.exec(head);
	return match?.[1] ?? null;
}

/**
 * A branch's discern.toml at the commit the branch list named (never by the
 * branch's name: a ref moved since, by a job or anyone, would have the judgement
 * compare with another commit than the one it records).
 */
async function committedConfig(root: string, trunk: Trunk, reader: ObjectReader): Promise<CommittedRead> {
	const branch = trunk.name ?? "";
	if (!trunk.sha) return { config: null, reason: `the trunk \`${clip(branch)}\` has no commit` };
	const read = await readCommittedConfig(root, trunk.sha, reader);
	if (read.state === "unreadable") return { config: null, reason: `${read.reason} (the trunk \`${clip(branch)}\`)`, failed: true };
	if (read.state === "absent") return { config: null, reason: `the trunk \`${clip(branch)}\` has no committed discern.toml` };
	const parsed = parseConfig(read.text);
	return parsed.ok
		? { config: parsed.config }
		: { config: null, reason: `the trunk \`${clip(branch)}\`'s committed discern.toml does not validate`, invalid: true };
}
