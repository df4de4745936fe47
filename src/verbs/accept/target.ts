import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { VerbContext } from "../../contract/context.ts";
import type { Refusal } from "../../contract/envelope.ts";
import { ref } from "../../contract/refer.ts";
import { unprintablePath } from "../../git/printable-path.ts";
import { locateRepository, type RepositoryLocation } from "../../git/repository.ts";
import { realPathOf } from "../../platform/files.ts";
import { clip } from "../../text/clip.ts";
import { quoteName } from "../../text/terminal.ts";
import { type ListedWorktree, listWorktrees } from "../../worktree/git-worktrees.ts";
import { readTask } from "../../worktree/task.ts";
import { type Journal, readJournals } from "./journal.ts";

/** The worktree to land, located and checked to belong to this repository. */
export interface Target {
	path: string;
	branch: string;
	location: RepositoryLocation;
	id: string | null;
}

export type Found =
	| { ok: true; main: ListedWorktree; target: Target; journal: null }
	/** The worktree is gone, but an interrupted accept of it left a journal. */
	| { ok: true; main: ListedWorktree; target: null; journal: Journal }
	| { ok: false; refusal: Refusal };

/**
 * Which worktree `accept` lands: the one it runs in, or, from the main
 * checkout, the one `target` names (its id, path or branch). Names are
 * compared as strings and paths after resolving symlinks: nothing the
 * caller typed reaches git as an argument.
 */
export async function findTarget(ctx: VerbContext, here: RepositoryLocation, wanted: string | undefined): Promise<Found> {
	const { say } = ctx;
	const entries = await listWorktrees(here.root, here.commonDir);
	const main = entries?.find((entry) => entry.main);
	if (!entries || !main || main.bare) {
		return {
			ok: false,
			refusal: {
				error: "no_repository",
				message: "git could not list this repository's worktrees, or it has no main checkout.",
				hints: ["Run `git worktree list` and repair the repository."],
			},
		};
	}
	const hereReal = await realPathOf(here.root);
	const linked = entries.filter((entry) => !entry.main);
	const matches = wanted === undefined ? [] : await matchEntries(linked, wanted, ctx.cwd);
	// An interrupted accept whose worktree is gone is one more thing the name can mean.
	const journals =
		wanted === undefined
			? []
			: (await readJournals(here.commonDir)).filter((candidate) => candidate.branch === wanted || candidate.id === wanted || candidate.path === wanted);
	const orphans = journals.filter((journal) => !linked.some((entry) => entry.branch === journal.branch));
	if (wanted !== undefined && matches.length + orphans.length > 1) {
		const listed = [
			...matches.map(
				(match) =>
					`${quoteName(match.entry.path)} (branch \`${clip(match.entry.branch ?? "detached")}\`, id ${match.id ? `\`${clip(match.id)}\`` : "none"}; matched by ${match.by.join(" and ")})`,
			),
			...orphans.map(
				(journal) =>
					`${quoteName(journal.path)} (branch \`${clip(journal.branch)}\`, id ${journal.id ? `\`${clip(journal.id)}\`` : "none"}; an interrupted accept, its worktree gone)`,
			),
		];
		return {
			ok: false,
			refusal: {
				error: "invalid_arguments",
				message: `\`${clip(wanted)}\` names ${listed.length} worktrees: ${listed.join(", ")}. Nothing changed.`,
				hints: [
					say`Name exactly one: pass its path (${ref("accept", { target: matches[0]?.entry.path ?? orphans[0]?.path ?? "PATH" })}) or another of its names.`,
				],
			},
		};
	}
	const byName = matches[0]?.entry;

	let entry: ListedWorktree | undefined;
	if (here.location === "worktree") {
		const self = await findAsync(linked, async (candidate) => (await realPathOf(candidate.path)) === hereReal);
		if (!self)
			return {
				ok: false,
				refusal: { error: "not_in_worktree", message: "This worktree is not in git's list of worktrees.", hints: ["Run `git worktree list` to see them."] },
			};
		if (wanted !== undefined && byName !== self) {
			return {
				ok: false,
				refusal: {
					error: "not_main_checkout",
					message: `This is the worktree of \`${clip(self.branch ?? "?")}\`; \`${clip(wanted)}\` names another. A worktree lands only itself.`,
					hints: [say`Run ${ref("accept")} without a target here, or from the main checkout name the worktree to land.`],
				},
			};
		}
		entry = self;
	} else {
		if (wanted === undefined) {
			const names = linked.map((candidate) => candidate.branch ?? candidate.path).slice(0, 10);
			return {
				ok: false,
				refusal: {
					error: "unknown_target",
					message: `From the main checkout, name the worktree to land${names.length > 0 ? `: one of ${names.map((name) => `\`${clip(name)}\``).join(", ")}` : "; this repository has no other worktree"}.`,
					hints: [say`Pass its id, path or branch: ${ref("accept", { target: names[0] ?? "ID" })}.`],
				},
			};
		}
		entry = byName;
		if (!entry) {
			const journal = orphans[0] ?? journals[0];
			if (journal) return { ok: true, main, target: null, journal };
			return {
				ok: false,
				refusal: {
					error: "unknown_target",
					message: `No worktree of this repository is named \`${clip(wanted)}\` (by id, path or branch, or a prefix of an id or branch).`,
					hints: [say`Run ${ref("status")} or \`git worktree list\` to see the worktrees.`],
				},
			};
		}
	}
	if (!entry.branch) {
		return {
			ok: false,
			refusal: {
				error: "detached_head",
				message: `The worktree at ${clip(quoteName(entry.path))} has a detached HEAD: only a branch can land.`,
				hints: ["Switch it to its branch (`git switch NAME`), then accept again."],
			},
		};
	}
	// git lists it whole (-z), but every git answer naming its folders afterwards would be read one line at a time.
	const unprintable = unprintablePath(entry.path);
	if (unprintable) {
		return {
			ok: false,
			refusal: {
				error: "unknown_target",
				message: `discern will not land the worktree at ${clip(quoteName(entry.path))}: ${unprintable}. Nothing changed.`,
				hints: [`Move it (\`git worktree move\`) to a path without control characters, then accept again.`],
			},
		};
	}
	const opened = await opensAsListed(entry, entry.path, here.commonDir, ctx.env);
	if (!opened) {
		return {
			ok: false,
			refusal: {
				error: "unknown_target",
				message: `The folder at ${clip(quoteName(entry.path))} does not open as the worktree git lists there (branch \`${clip(entry.branch)}\`): it was moved, replaced or switched. Nothing changed.`,
				hints: ["Run `git worktree list` and `git worktree prune` to repair the list, then accept again."],
			},
		};
	}
	const task = await readTask(opened.adminDir);
	return {
		ok: true,
		main,
		target: { path: opened.repository.root, branch: entry.branch, location: { ...opened.repository, gitDir: opened.adminDir }, id: task?.id ?? null },
		journal: null,
	};
}

/**
 * Whether the folder at `path` opens as the listed worktree `entry`, checked
 * against git's own admin files for it: a folder swapped for a symlink into
 * another worktree (or another repository) opens as that one, whose commit
 * must never land, nor its folder be removed, under this name. The
 * repository it opens as and the entry's admin dir (real path), or null.
 */
export async function opensAsListed(
	entry: ListedWorktree,
	path: string,
	commonDir: string,
	env: Readonly<Record<string, string | undefined>>,
): Promise<{ repository: RepositoryLocation; adminDir: string } | null> {
	if (!entry.branch) return null;
	const located = await locateRepository(path, env);
	const [adminDir, locatedDir] = await Promise.all([
		entry.gitDir ? realPathOf(entry.gitDir) : null,
		located.found ? realPathOf(located.repository.gitDir) : null,
	]);
	const branchHere = adminDir ? await headBranch(adminDir) : null;
	if (
		!located.found ||
		!adminDir ||
		locatedDir !== adminDir ||
		(await realPathOf(located.repository.commonDir)) !== (await realPathOf(commonDir)) ||
		located.repository.location !== "worktree" ||
		branchHere !== entry.branch ||
		(await realPathOf(located.repository.root)) !== (await realPathOf(entry.path))
	) {
		return null;
	}
	return { repository: located.repository, adminDir };
}

/** The branch a git dir's HEAD names (`ref: refs/heads/X`), or null (detached, unreadable). */
async function headBranch(gitDir: string): Promise<string | null> {
	const text = (await readFile(join(gitDir, "HEAD"), "utf8").catch(() => "")).trim();
	return text.startsWith("ref: refs/heads/") ? text.slice("ref: refs/heads/".length) : null;
}

/** One worktree a name matches, and by what (several at once when its id is its branch). */
interface Match {
	entry: ListedWorktree;
	id: string | null;
	by: ("branch" | "path" | "task id" | "a prefix of its branch" | "a prefix of its task id")[];
}

/** Every linked worktree the name matches by branch, path (symlinks resolved) or task id: more than one is ambiguous. */
async function matchEntries(linked: readonly ListedWorktree[], wanted: string, cwd: string): Promise<Match[]> {
	const wantedReal = await realPathOf(resolve(cwd, wanted));
	const matches: Match[] = [];
	const ids = new Map<ListedWorktree, string | null>();
	for (const entry of linked) {
		const id = entry.gitDir ? ((await readTask(entry.gitDir))?.id ?? null) : null;
		ids.set(entry, id);
		const by: Match["by"] = [];
		if (entry.branch !== null && (entry.branch === wanted || `refs/heads/${entry.branch}` === wanted)) by.push("branch");
		if ((await realPathOf(entry.path)) === wantedReal) by.push("path");
		if (id === wanted) by.push("task id");
		if (by.length > 0) matches.push({ entry, id, by });
	}
	if (matches.length > 0 || wanted === "") return matches;
	// Nothing named exactly: a prefix of a task id or branch (ids are long); two sharing it are refused, listed.
	for (const entry of linked) {
		const id = ids.get(entry) ?? null;
		const by: Match["by"] = [];
		if (entry.branch?.startsWith(wanted)) by.push("a prefix of its branch");
		if (id?.startsWith(wanted)) by.push("a prefix of its task id");
		if (by.length > 0) matches.push({ entry, id, by });
	}
	return matches;
}

async function findAsync<T>(items: readonly T[], test: (item: T) => Promise<boolean>): Promise<T | undefined> {
	for (const item of items) if (await test(item)) return item;
	return undefined;
}
