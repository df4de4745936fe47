import { join } from "node:path";
import { decodeKnown, encodeKnown, type KnownContent } from "../git/evidence/known-content.ts";
import { readRegularFile } from "../platform/files.ts";
import { stateFolderToRead, writeStateFile } from "../state/dir.ts";
import { sealer, sealHolds } from "./seal.ts";

/**
 * Where the evidence's facts about a checkout's files are kept between runs
 * (git/evidence/known-content.ts): `<git dir>/discern/content-ids`, in the
 * checkout's own git dir, so a linked worktree never reads another's. A
 * fact that says a file is unchanged is as strong as a Proof, so the file is
 * sealed with the Proof's key like the Proof itself: one written or edited
 * by hand has no valid seal and is not believed, and the files are read.
 */
const FILE = "content-ids";

/** Large repositories keep large files of facts: a few hundred bytes a file. */
const MAX_BYTES = 512 * 1024 * 1024;

interface Header {
	version: 1;
	/** The checkout the facts are about: facts about another folder's files are none of this one's. */
	root: string;
	context: string;
}

/** The facts kept for the checkout at `root`; null when there are none, or none that hold (unsealed, another checkout's, unreadable). */
export async function recallContent(gitDir: string, root: string): Promise<KnownContent | null> {
	const folder = stateFolderToRead(gitDir, []);
	const bytes = folder === null ? null : readRegularFile(join(folder, FILE), MAX_BYTES);
	if (!bytes) return null;
	const text = bytes.toString("utf8");
	const lineEnd = text.indexOf("\n");
	if (lineEnd < 0) return null;
	let parsed: unknown;
	try {
		parsed = JSON.parse(text.slice(0, lineEnd));
	} catch {
		return null;
	}
	if (typeof parsed !== "object" || parsed === null) return null;
	const { seal, ...header } = parsed as Header & { seal?: unknown };
	if (header.version !== 1 || header.root !== root || typeof header.context !== "string") return null;
	const body = text.slice(lineEnd + 1);
	if (!(await sealHolds(gitDir, sealed(header, body), seal))) return null;
	const files = decodeKnown(body);
	return files ? { context: header.context, files } : null;
}

/** Keep `known` for the next run, sealed; written whole or not at all. */
export async function keepContent(gitDir: string, root: string, known: KnownContent): Promise<void> {
	const header: Header = { version: 1, root, context: known.context };
	const body = encodeKnown(known.files);
	const seal = (await sealer(gitDir))(sealed(header, body));
	await writeStateFile(gitDir, FILE, `${JSON.stringify({ ...header, seal })}\n${body}`, { mode: 0o600 });
}

/** What the seal covers: the header (its keys in one order) and every fact. */
function sealed(header: Header, body: string): string {
	return `${JSON.stringify({ version: header.version, root: header.root, context: header.context })}\n${body}`;
}
