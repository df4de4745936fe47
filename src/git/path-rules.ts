/**
 * Tree entry names git will not put in an index or check out: some disk
 * would read them as `.git` (or, for a symbolic link, as a file whose rules
 * git reads). git's `verify_path` refuses them with the protections it
 * ships (NTFS on everywhere, HFS+ on macOS); a checkout of such a tree
 * fails, so no Proof may vouch for one. Both protections apply here, on
 * every platform: a commit is judged the same wherever it is checked.
 *
 * Mirrors git's path.c and read-cache.c (`is_ntfs_dotgit`,
 * `is_ntfs_dot_generic`, `is_hfs_dot_generic`, `verify_dotfile`); the
 * tests hold each case to `git update-index`'s own verdict.
 */

/** Whether git refuses a tree entry called `name` (one path component) of the given mode. */
export function refusedName(name: string, mode: string): boolean {
	const link = mode === "120000";
	// NTFS reads `\` as a folder separator: every piece after one is checked as a name of its own.
	for (let at = 0; at >= 0; at = name.indexOf("\\", at) + 1 || -1) {
		const rest = name.slice(at);
		if (isNtfsDotGit(rest)) return true;
		if (link && NTFS_DOTFILES.some(([needle, short]) => isNtfsDot(rest, needle, short))) return true;
	}
	if (isHfsDot(name, "git")) return true;
	return link && NTFS_DOTFILES.some(([needle]) => isHfsDot(name, needle));
}

/**
 * The files git reads rules from, that a symbolic link must not stand in
 * for, with the prefix of their NTFS fall-back short names (git's
 * `is_ntfs_dotgitmodules` and friends).
 */
const NTFS_DOTFILES: readonly (readonly [string, string])[] = [
	["gitmodules", "gi7eba"],
	["gitattributes", "gi7d29"],
	["gitignore", "gi250a"],
	["mailmap", "maba30"],
];

/** `.git` or `git~1` in any case, then only dots and spaces up to the end, a `:` stream or a separator. */
function isNtfsDotGit(name: string): boolean {
	const lower = asciiLower(name.slice(0, 5));
	const stem = lower.startsWith(".git") ? 4 : lower.startsWith("git~1") ? 5 : 0;
	return stem > 0 && onlyDotsAndSpaces(name, stem, ["/", "\\", ":"]);
}

/**
 * `.<needle>`, its 8.3 short name (`<six letters>~1` to `~4`), or a
 * fall-back short name (up to six letters of `short`, `~`, digits), in any
 * case, then only dots and spaces up to the end or a `:` stream.
 */
function isNtfsDot(name: string, needle: string, short: string): boolean {
	const lower = asciiLower(name);
	if (lower.startsWith(`.${needle}`)) return onlyDotsAndSpaces(name, needle.length + 1, [":"]);
	if (lower.startsWith(needle.slice(0, 6)) && name[6] === "~" && "1234".includes(name[7] ?? "x")) return onlyDotsAndSpaces(name, 8, [":"]);
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
		} else if (i >= 6 || c.charCodeAt(0) > 0x7f || c !== short[i]) {
			return false;
		}
	}
	return onlyDotsAndSpaces(name, 8, [":"]);
}

function onlyDotsAndSpaces(name: string, from: number, ends: readonly string[]): boolean {
	for (let i = from; i < name.length; i++) {
		const c = name[i] as string;
		if (ends.includes(c)) return true;
		if (c !== "." && c !== " ") return false;
	}
	return true;
}

/** `.<needle>` in any case once HFS+ drops the code points it ignores (zero-width joiners, direction marks, U+FEFF). */
function isHfsDot(name: string, needle: string): boolean {
	return asciiLower(name.replace(HFS_IGNORED, "")) === `.${needle}`;
}

/** Lower case as git's `tolower` does it (ASCII only): a JavaScript fold can change a name's length, or its letters. */
function asciiLower(text: string): string {
	return text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}

const HFS_IGNORED = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;
