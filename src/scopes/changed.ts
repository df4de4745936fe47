import { git } from "../git/run.ts";
import { clip } from "../text/clip.ts";
import { firstNonBlankLine } from "../text/first-line.ts";

export interface ChangedPaths {
	/** Repository-relative paths, deduplicated and sorted. */
	paths: string[];
	/** False when some source could not be read: callers must then fail open. */
	complete: boolean;
	/** Why the list is incomplete (absent when complete). */
	reason?: string;
	/** Changed paths that are submodules: each stands for every path inside it. */
	submodules: string[];
}

/** The reason given when no trunk was passed; callers that know more may replace it. */
export const NO_TRUNK_REASON = "no trunk is known, so committed changes on this branch cannot be listed";

// Renames are off so that a move counts at both ends: the old path's scope
// lost a file just as surely as the new path's scope gained one.
// Submodule changes always count: local config or `.gitmodules` may say `ignore = all`. `--raw` gives
// the modes, so a submodule (mode 160000 on either side) is known as one.
const DIFF = ["diff", "--raw", "-z", "--no-renames", "--ignore-submodules=none", "--abbrev=40"] as const;

/**
 * Every path the branch and the working tree change: the diff against the
 * merge base with the trunk, staged, unstaged and untracked files. The four
 * git calls run at once (each is a process start). `trunk` is a revision,
 * usually `refs/heads/<name>`; null when no trunk is known.
 */
export async function changedPaths(root: string, trunk: string | null, options: { signal?: AbortSignal } = {}): Promise<ChangedPaths> {
	const run = (args: readonly string[]) => git(args, root, options.signal ? { signal: options.signal } : {});
	const sources: { label: string; args: readonly string[] }[] = [
		{ label: "the staged changes", args: [...DIFF, "--cached"] },
		{ label: "the unstaged changes", args: [...DIFF] },
		{ label: "the untracked files", args: ["ls-files", "--others", "--exclude-standard", "-z"] },
	];
	const reasons: string[] = [];
	if (trunk === null) reasons.push(NO_TRUNK_REASON);
	// A revision starting with `-` would be read as an option.
	else if (trunk.startsWith("-")) reasons.push(`the trunk \`${clip(trunk)}\` is not a valid revision`);
	// `--` keeps git from guessing whether the revision range is a path.
	else sources.unshift({ label: `the committed changes against \`${clip(trunk)}\``, args: [...DIFF, `${trunk}...HEAD`, "--"] });

	const outcomes = await Promise.all(sources.map(async (source) => ({ source, result: await run(source.args) })));
	const seen = new Set<string>();
	const submodules = new Set<string>();
	for (const { source, result } of outcomes) {
		if (result.exitCode !== 0) {
			reasons.push(`git could not list ${source.label} (${firstNonBlankLine(result.stderr) ?? `exit ${result.exitCode}`})`);
			continue;
		}
		const fields = result.stdout.split("\0");
		for (let i = 0; i < fields.length; i++) {
			const field = fields[i] ?? "";
			if (field === "") continue;
			// `--raw -z`: `:<old mode> <new mode> <old> <new> <status>` then the path; ls-files: paths alone.
			if (field.startsWith(":")) {
				const path = fields[++i] ?? "";
				if (path === "") continue;
				seen.add(path);
				if (/^:(160000 |\d{6} 160000 )/.test(field)) submodules.add(path);
			} else seen.add(field);
		}
	}
	const paths = [...seen].sort();
	const found = { paths, submodules: [...submodules].sort() };
	return reasons.length === 0 ? { ...found, complete: true } : { ...found, complete: false, reason: reasons.join("; ") };
}
