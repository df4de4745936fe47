import { join } from "node:path";
import { decodeKnown, encodeKnown, type KnownContent } from "../git/evidence/known-content.ts";
import { readRegularFile } from "../platform/files.ts";
import { stateFolderToRead, writeStateFile } from "../state/dir.ts";
import { VERSION } from "../version.ts";
import { type Sealed, sealer, sealHolds } from "./seal.ts";

/**
 * Where the evidence's facts about a checkout's files are kept between runs
 * (git/evidence/known-content.ts): `<git dir>/discern/content-ids`, in the
 * checkout's own git dir, so a linked worktree never reads another's. A
 * fact that says a file is unchanged is as strong as a Proof, so the file is
 * sealed with the Proof's key like the Proof itself: one written or edited
 * by hand has no valid seal and is not believed, and the files are read.
 * The commit's tree is kept with the facts, as walked from hashed objects:
 * only a file sealed by this same build of discern is believed for it (a
 * later build may refuse trees this one walked).
 */
const FILE = "content-ids";

/** Large repositories keep large files of facts: a few hundred bytes a file. */
const MAX_BYTES = 512 * 1024 * 1024;

interface Header {
	version: 2;
	/** The build of discern that walked the tree and wrote the file. */
	build: string;
	/** The checkout the facts are about: facts about another folder's files are none of this one's. */
	root: string;
	context: string;
	/** The tree's id (its records are the body's). */
	tree: string;
	/** See `KnownContent.index`. */
	index: string | null;
}

/** The facts kept for the checkout at `root`; null when there are none, or none that hold (unsealed, another checkout's, unreadable). */
export async function recallContent(gitDir: string, root: string): Promise<KnownContent | null> {
	const folder = stateFolderToRead(gitDir, []);
	const bytes = folder === null ? null : readRegularFile(join(folder, FILE), MAX_BYTES);
	if (!bytes) return null;
	// The seal is checked over the body's bytes as read: it is decoded to text only once it holds.
	const lineEnd = bytes.indexOf(0x0a);
	if (lineEnd < 0) return null;
	let parsed: unknown;
	try {
		parsed = JSON.parse(bytes.subarray(0, lineEnd).toString("utf8"));
	} catch {
		return null;
	}
	if (typeof parsed !== "object" || parsed === null) return null;
	const { seal, ...header } = parsed as Header & { seal?: unknown };
	const valid =
		header.version === 2 &&
		header.build === VERSION &&
		header.root === root &&
		typeof header.context === "string" &&
		typeof header.tree === "string" &&
		(header.index === null || typeof header.index === "string");
	if (!valid) return null;
	const body = bytes.subarray(lineEnd + 1);
	if (!(await sealHolds(gitDir, sealed(header, body), seal))) return null;
	const decoded = decodeKnown(body.toString("utf8"));
	return decoded
		? { context: header.context, tree: { id: header.tree, records: decoded.records, folders: decoded.folders }, index: header.index, files: decoded.files }
		: null;
}

/** Keep `known` for the next run, sealed; written whole or not at all. */
export async function keepContent(gitDir: string, root: string, known: KnownContent): Promise<void> {
	const header: Header = { version: 2, build: VERSION, root, context: known.context, tree: known.tree.id, index: known.index };
	const body = encodeKnown(known);
	const seal = (await sealer(gitDir))(sealed(header, body));
	await writeStateFile(gitDir, FILE, `${JSON.stringify({ ...header, seal })}\n${body}`, { mode: 0o600 });
}

/** What the seal covers: the header (its keys in one order) and every record and fact. */
function sealed(header: Header, body: string | Uint8Array): Sealed {
	const { version, build, root, context, tree, index } = header;
	return [`${JSON.stringify({ version, build, root, context, tree, index })}\n`, body];
}
