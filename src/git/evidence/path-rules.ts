/**
 * Paths git will not put in an index or check out: some disk would read
 * them as `.git`, or as `.gitmodules` where git would follow a symbolic
 * link. git's `verify_path` refuses them with the protections it ships
 * (NTFS on everywhere, HFS+ on macOS); a checkout of such a tree fails, so
 * no Proof may vouch for one. Both protections apply here, on every
 * platform: a commit is judged the same wherever it is checked.
 *
 * Mirrors git's read-cache.c and path.c (`verify_path`, `verify_dotfile`,
 * `is_ntfs_dotgit`, `is_ntfs_dot_generic`, `is_hfs_dot_generic`); the tests
 * hold each case to `git update-index`'s own verdict.
 */

/** Whether git refuses a tree entry called `name` (one path component) of the given mode. */
export function refusedName(name: string, mode: string): boolean {
	const link = mode === "120000";
	for (const piece of ntfsPieces(name)) {
		if (isNtfsDotGit(piece)) return true;
		// The whole rest of the path is read, and it ends here: a stream's `:`, or the name's end.
		if (link && isNtfsDotGitmodules(piece, true)) return true;
	}
	return isHfsDot(name, "git") || (link && (isHfsDot(name, "gitmodules") || asciiLower(name) === ".gitmodules"));
}

/**
 * Whether git's fsck rejects a tree entry called `name` of the given mode,
 * though a checkout takes it: a folder or a submodule where `.gitmodules`
 * or `.gitattributes` (as some disk reads them) belongs, which fsck must
 * read as a file of settings (`gitmodulesBlob`, `gitattributesBlob`). Hosts
 * that check what is pushed refuse such a commit. Mirrors fsck.c
 * (`fsck_tree`: `is_hfs_dotgitmodules` and `is_ntfs_dotgitmodules` on the
 * name and on what follows each backslash; `.gitattributes` on the name);
 * the tests hold each case to `git fsck`'s own verdict. (A link is
 * `refusedName`'s.)
 */
export function refusedByFsck(name: string, mode: string): boolean {
	if (mode !== "40000" && mode !== "160000") return false;
	// fsck reads on after every backslash, a first one too (verify_path does not: see `ntfsPieces`).
	const pieces = name.split("\\").map((_, n, all) => all.slice(n).join("\\"));
	// `.gitattributes` only as the whole name: fsck reads past a backslash for `.gitmodules` alone.
	return (
		isHfsDot(name, "gitmodules") ||
		pieces.some((piece) => isNtfsDotGitmodules(piece, true)) ||
		isHfsDot(name, "gitattributes") ||
		isNtfsDot(name, "gitattributes", "gi7d29", true)
	);
}

/**
 * Whether git refuses a symbolic link below a folder called `name`: it
 * checks every folder of a path with the link's own mode, so a folder
 * that reads as `.gitmodules` cannot hold one. NTFS reads on past the
 * folder's `/`, so only a `:` stream ends that spelling there.
 */
export function refusedLinkFolder(name: string): boolean {
	if (asciiLower(name) === ".gitmodules" || isHfsDot(name, "gitmodules")) return true;
	return ntfsPieces(name).some((piece) => isNtfsDotGitmodules(piece, false));
}

/**
 * A name as NTFS splits it: the whole, and what follows each backslash
 * after the first character (git reads a name's first character as a
 * name's, even a backslash).
 */
function ntfsPieces(name: string): string[] {
	const pieces = [name];
	for (let at = name.indexOf("\\", 1); at >= 0; at = name.indexOf("\\", at + 1)) pieces.push(name.slice(at + 1));
	return pieces;
}

/** `.git` or `git~1` in any case, then only dots and spaces up to the end, a `:` stream or a separator. */
function isNtfsDotGit(name: string): boolean {
	const lower = asciiLower(name.slice(0, 5));
	const stem = lower.startsWith(".git") ? 4 : lower.startsWith("git~1") ? 5 : 0;
	return stem > 0 && onlyDotsAndSpaces(name, stem, ["/", "\\", ":"], true);
}

/**
 * `.gitmodules`, its 8.3 short name (`gitmod~1` to `~4`), or a fall-back
 * short name (up to six letters of `gi7eba`, `~`, digits), in any case,
 * then only dots and spaces up to a `:` stream or, when `endsHere`, the
 * name's end (git's `is_ntfs_dotgitmodules`).
 */
function isNtfsDotGitmodules(name: string, endsHere: boolean): boolean {
	return isNtfsDot(name, "gitmodules", SHORT_GITMODULES, endsHere);
}

/** `.<stem>` as NTFS reads a name, its 8.3 short names (`<six letters>~1` to `~4`) and fall-back ones from `shortPrefix` (git's `is_ntfs_dot_generic`). */
function isNtfsDot(name: string, stem: string, shortPrefix: string, endsHere: boolean): boolean {
	const lower = asciiLower(name);
	const rest = (from: number) => onlyDotsAndSpaces(name, from, [":"], endsHere);
	if (lower.startsWith(`.${stem}`)) return rest(stem.length + 1);
	if (lower.startsWith(stem.slice(0, 6)) && name[6] === "~" && "1234".includes(name[7] ?? "x")) return rest(8);
	let sawTilde = false;
	for (let i = 0; i < 8; i++) {
		const c = lower[i];
		if (c === undefined) return false;
		if (sawTilde) {
			if (c < "0" || c > "9") return false;
		} else if (c === "~") {
			i++;
			const digit = lower[i];
			if (digit === undefined || digit < "1" || digit > "9") return false;
			sawTilde = true;
		} else if (i >= 6 || c !== shortPrefix[i]) {
			return false;
		}
	}
	return rest(8);
}

/** The prefix of `.gitmodules`'s fall-back 8.3 short names. */
const SHORT_GITMODULES = "gi7eba";

/** From `from` on, only dots and spaces until one of `ends` (true), anything else (false), or the name's end (`atEnd`). */
function onlyDotsAndSpaces(name: string, from: number, ends: readonly string[], atEnd: boolean): boolean {
	for (let i = from; i < name.length; i++) {
		const c = name[i] as string;
		if (ends.includes(c)) return true;
		if (c !== "." && c !== " ") return false;
	}
	return atEnd;
}

/**
 * `.<needle>` in any case as HFS+ reads a name: the code points it ignores
 * dropped (zero-width joiners, direction marks, U+FEFF), and the name
 * ending at U+FFFE or U+FFFF, which git's UTF-8 reader stops at.
 */
function isHfsDot(name: string, needle: string): boolean {
	const read = name.replace(HFS_IGNORED, "");
	const stop = read.search(/[\ufffe\uffff]/);
	return asciiLower(stop >= 0 ? read.slice(0, stop) : read) === `.${needle}`;
}

const HFS_IGNORED = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/** Lower case as git's `tolower` does it (ASCII only): a JavaScript fold can change a name's length, or its letters. */
function asciiLower(text: string): string {
	return text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}
