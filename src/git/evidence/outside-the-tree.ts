import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { quoteName } from "../../text/terminal.ts";
import { nulSeparated } from "../nul-list.ts";
import { complaint, type git } from "../run.ts";

/**
 * Attributes from outside the commit under test that would change how the
 * evidence reads the commit's files (which are converted, and how). The
 * evidence already switches off what configuration can switch off (global
 * and system attributes); these are the sources it cannot, checked per
 * repository (submodules have their own):
 *
 * - `$GIT_COMMON_DIR/info/attributes` assigning a transforming attribute;
 * - a `.gitattributes` file that is not part of the commit (untracked,
 *   ignored or excluded locally) in a folder that holds tracked files.
 *
 * Each problem names its file.
 */
const TRANSFORMING = new Set(["filter", "ident", "text", "eol", "crlf", "working-tree-encoding"]);

type Git = (args: readonly string[], options?: { input?: string }) => ReturnType<typeof git>;

/**
 * `git ls-files` of the untracked paths that the `.gitignore` files ignore
 * (never `info/exclude` or a global excludes file), a wholly ignored folder
 * once as itself (`dir/`); the pathspecs follow.
 */
export const IGNORED_BY_GITIGNORE = ["ls-files", "-z", "--others", "--ignored", "--directory", "--exclude-per-directory=.gitignore", "--"] as const;

/**
 * The only rules under which an untracked file is not a change: the
 * `.gitignore` files'. Never `info/exclude` or a global excludes file
 * (core.excludesFile): they are local, and could hide code the jobs run (an
 * uncommitted conftest.py). The evidence's untracked listing, and every
 * cheaper judgement of a clean tree (worktree/tree-work.ts), use exactly these.
 */
export const COMMITTED_IGNORE_RULES = ["--exclude-per-directory=.gitignore"] as const;

/** `tracked`: the tracked paths, or a promise of them (the listing starts at once either way). */
export async function contentTransformedFromOutside(
	run: Git,
	commonDir: string,
	tracked: readonly string[] | PromiseLike<readonly string[]>,
): Promise<string[]> {
	const [info, stray] = await Promise.all([infoAttributes(commonDir), strayAttributeFiles(run, tracked)]);
	return [...info, ...stray];
}

/** `$GIT_COMMON_DIR/info/attributes` assigning a transforming attribute, named. */
export async function infoAttributes(commonDir: string): Promise<string[]> {
	const path = join(commonDir, "info/attributes");
	const names = transformingAttributes(await readFile(path, "utf8").catch(() => ""));
	return names.length > 0 ? [`${quoteName(path)} sets ${names.map((name) => `\`${name}\``).join(", ")}`] : [];
}

/**
 * `.gitattributes` and `.gitignore` files the commit does not hold, that git
 * reads: an attributes file in a folder of tracked files changes how git
 * reads them; an ignore file anywhere outside an ignored folder hides
 * untracked files the jobs would run (an uncommitted `conftest.py` in a
 * folder whose own `.gitignore` says `*`). Only `.gitignore` rules count
 * (never `info/exclude` or a global excludes file), so a stray one that
 * ignores itself is listed here. One inside a folder the committed rules
 * ignore (every package in node_modules ships some) is that folder's
 * business: `--directory` lists such a folder once, as itself. Not so a
 * hidden folder that ignores itself (`*`), as pytest, mypy, ruff and venv
 * mark their caches: tools read their own settings from such folders
 * (`.cargo/config.toml` can make `cargo test` run nothing), so only the
 * committed rules may make a folder the jobs' own.
 */
export async function strayAttributeFiles(run: Git, trackedRead: readonly string[] | PromiseLike<readonly string[]>): Promise<string[]> {
	const [listed, tracked] = await Promise.all([run([...IGNORED_BY_GITIGNORE, ":(glob)**/.gitattributes", ":(glob)**/.gitignore"]), trackedRead]);
	// A folder git could not open (no read permission) is one it never looked in: a warning, with exit 0.
	if (listed.exitCode !== 0 || listed.stderr.trim() !== "")
		return [`git could not list the attribute and ignore files that are not committed${complaint(listed.stderr)}`];
	// One that is not ignored shows up as an untracked file already; an ignored folder is listed as itself (`dir/`).
	const strays = nulSeparated(listed.stdout).filter((path) => !path.endsWith("/"));
	if (strays.length === 0) return [];
	const folders = foldersHolding(tracked);
	return strays
		.filter((path) => path.endsWith(".gitignore") || folders.has(path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : ""))
		.map((path) => `${quoteName(path)} is not committed, yet git reads its rules (commit it, or ignore its folder in a committed .gitignore)`);
}

/** Every folder that holds a tracked path at any depth ("" is the root). */
export function foldersHolding(paths: readonly string[]): Set<string> {
	const folders = new Set<string>([""]);
	for (const path of paths) {
		for (let slash = path.indexOf("/"); slash >= 0; slash = path.indexOf("/", slash + 1)) folders.add(path.slice(0, slash));
	}
	return folders;
}

/** The transforming attributes a gitattributes text sets (not unsets: `-text` and `!eol` convert nothing). */
export function transformingAttributes(text: string): string[] {
	const names = new Set<string>();
	for (const raw of text.split(/\r?\n/)) {
		const line = raw.trim();
		if (line === "" || line.startsWith("#")) continue;
		// The first field is the pattern (or `[attr]name` for a macro); attributes follow.
		const [, ...attributes] = line.split(/\s+/);
		for (const attribute of attributes) {
			if (attribute.startsWith("-") || attribute.startsWith("!")) continue;
			const name = attribute.split("=")[0] ?? "";
			if (TRANSFORMING.has(name)) names.add(name);
		}
	}
	return [...names].sort();
}
