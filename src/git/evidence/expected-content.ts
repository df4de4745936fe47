import { quoteName } from "../../text/terminal.ts";
import { readBlobs, type TreeRecord } from "../object-check.ts";
import type { ObjectReader } from "../object-reader.ts";
import type { git } from "../run.ts";

/**
 * What each tracked path of a commit should hold in the checkout, for the
 * evidence index (evidence.ts): the tree's records, which files the
 * commit's own attributes convert (they must then match what a checkout
 * writes), and the committed pointers of Git LFS files.
 */
type Run = (args: readonly string[], options?: { input?: string }) => ReturnType<typeof git>;

/** One tracked path of the commit, and how its content is verified. */
export interface Entry {
	path: string;
	mode: string;
	/** `blob`, or `commit` for a submodule. */
	type: string;
	blob: string;
	check: "raw" | "lfs" | "converted" | "submodule";
}

/** A record of the commit's walked tree (object-check.ts) as an entry to verify. */
export function entryOf(record: TreeRecord): Entry {
	return {
		path: record.path,
		mode: record.mode,
		type: record.mode === "160000" ? "commit" : "blob",
		blob: record.id,
		check: record.mode === "160000" ? "submodule" : "raw",
	};
}

const CONVERTING = ["filter", "text", "eol", "crlf", "ident", "working-tree-encoding"] as const;

/**
 * Which files the commit's own attributes convert (read from the private
 * index, so from the commit; global and system attributes are off): a Git
 * LFS file, a built-in conversion, or the reason a filter cannot be vouched for.
 */
export async function conversionsOf(run: Run, entries: Entry[]): Promise<true | string> {
	const files = entries.filter((entry) => entry.mode !== "160000" && entry.mode !== "120000");
	if (files.length === 0) return true;
	const result = await run(["check-attr", "--cached", "--stdin", "-z", ...CONVERTING], { input: `${files.map((entry) => entry.path).join("\0")}\0` });
	if (result.exitCode !== 0) return "git could not tell which attributes apply to the tracked files";
	const byPath = new Map(files.map((entry) => [entry.path, entry]));
	const fields = result.stdout.split("\0");
	// Records of three fields: path, attribute, value.
	for (let i = 0; i + 2 < fields.length; i += 3) {
		const entry = byPath.get(fields[i] ?? "");
		const attribute = fields[i + 1] ?? "";
		const value = fields[i + 2] ?? "";
		if (!entry || value === "unspecified" || value === "unset") continue;
		if (attribute === "filter") {
			if (value !== "lfs") return `the filter \`${value}\` rewrites ${quoteName(entry.path)}, and only its program could say what the file should hold`;
			entry.check = "lfs";
		} else if (entry.check === "raw") entry.check = "converted";
	}
	return true;
}

const LFS_POINTER = /^version https:\/\/git-lfs\.github\.com\/spec\/v1\noid sha256:([0-9a-f]{64})\nsize (0|[1-9][0-9]*)\n$/;

export interface LfsPointer {
	oid: string;
	size: number;
}

/**
 * The committed pointers of Git LFS files: a file matches when its sha256
 * and size do (no driver runs). A file marked for LFS whose committed
 * content is not a pointer (committed before LFS tracked it) is compared raw.
 */
export async function lfsPointers(reader: ObjectReader, entries: Entry[]): Promise<Map<string, LfsPointer> | string> {
	const pointers = new Map<string, LfsPointer>();
	// One git process for them all (one each ran out of file descriptors at a few hundred), each blob hashed back.
	const contents = await readBlobs(
		reader,
		entries.map((entry) => entry.blob),
	);
	if (typeof contents === "string") return `git cannot read the committed content of the Git LFS files: ${contents}`;
	for (const [index, entry] of entries.entries()) {
		const bytes = contents[index] as Uint8Array;
		// Only a canonical pointer is one (git-lfs checks out anything else as it is): compared raw otherwise.
		const pointer = bytes.length < 1024 ? LFS_POINTER.exec(new TextDecoder().decode(bytes)) : null;
		if (pointer?.[1] && pointer[2]) pointers.set(entry.path, { oid: pointer[1], size: Number(pointer[2]) });
	}
	return pointers;
}
