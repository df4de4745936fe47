import { lstat } from "node:fs/promises";
import { basename, dirname } from "node:path";
import type { DiscernConfig } from "../../config/schema.ts";
import type { VerbContext } from "../../contract/context.ts";
import { fail } from "../../contract/envelope.ts";
import { ref } from "../../contract/refer.ts";
import type { RepositoryLocation } from "../../git/repository.ts";
import { git, gitLine } from "../../git/run.ts";
import { realPathOf } from "../../platform/files.ts";
import { clip } from "../../text/clip.ts";
import { quoteName } from "../../text/terminal.ts";
import { resolveTrunk } from "../../trunk/resolve.ts";
import { listWorktrees, mainCheckoutOf } from "../../worktree/git-worktrees.ts";

import type { StartResult } from "./schema.ts";

/*
 * Where a task's worktree goes and what it starts from: the folder worktrees
 * live in, the base commit, and what git already has there (a branch, a
 * registered worktree, the main checkout).
 */

/** The folders `mkdir -p path` would create, the deepest first. */
export async function missingFolders(path: string): Promise<string[]> {
	const missing: string[] = [];
	let probe = path;
	while (!(await lstat(probe).catch(() => null))) {
		missing.push(probe);
		const up = dirname(probe);
		if (up === probe) break;
		probe = up;
	}
	return missing;
}

type Base = { ok: true; sha: string; from: string } | { ok: false; refusal: StartResult };

/** The commit the branch starts from: `from` resolved to a commit (never read as an option), else the trunk. */
export async function resolveBase(ctx: VerbContext, repository: RepositoryLocation, config: DiscernConfig, from: string | undefined): Promise<Base> {
	const { say } = ctx;
	if (from !== undefined) {
		const shown = quoteName(clip(from));
		if (from === "" || from.startsWith("-") || /[\u0000-\u001f\u007f]/.test(from)) {
			return {
				ok: false,
				refusal: fail("start", "invalid_arguments", `${shown} is not a ref name to start from.`, [
					say`Pass a branch, tag or commit: ${ref("start", { from: "main" })}.`,
				]),
			};
		}
		const sha = await gitLine(["rev-parse", "--verify", "--quiet", "--end-of-options", `${from}^{commit}`], repository.root);
		if (!sha)
			return {
				ok: false,
				refusal: fail("start", "invalid_arguments", `No commit is named ${shown} here.`, [
					say`Pass an existing branch, tag or commit, or leave \`from\` out to start from the trunk.`,
				]),
			};
		return { ok: true, sha, from };
	}
	const { trunk } = await resolveTrunk(repository.root, config.repository.trunk, ctx.env.DISCERN_TRUNK, { location: repository });
	if (!trunk.name || !trunk.exists) {
		const named = trunk.name ? `The trunk ${quoteName(trunk.name)} has no commit here` : "No trunk could be decided";
		return {
			ok: false,
			refusal: fail("start", "no_trunk", `${named}: a task branch starts from the trunk.`, [
				"Set [repository].trunk in discern.toml to the landing branch (and commit on it), or set DISCERN_TRUNK.",
				say`Or start from another ref: ${ref("start", { from: "REF" })}.`,
			]),
		};
	}
	const sha = trunk.sha || (await gitLine(["rev-parse", "--verify", "--quiet", `refs/heads/${trunk.name}^{commit}`], repository.root));
	if (!sha)
		return {
			ok: false,
			refusal: fail("start", "no_trunk", `The trunk ${quoteName(trunk.name)} cannot be read.`, ["Repair the trunk branch, then try again."]),
		};
	return { ok: true, sha, from: trunk.name };
}

/** Does git list a worktree at `path`? Compared as real paths: git records the path it was given, a symlink on the way included. */
export async function isRegistered(repository: RepositoryLocation, path: string): Promise<boolean> {
	const listed = await listWorktrees(repository.root, repository.commonDir);
	if (!listed) return false;
	const wanted = await realPathOf(path);
	for (const entry of listed) if (entry.path === path || (await realPathOf(entry.path)) === wanted) return true;
	return false;
}

export async function branchExists(root: string, branch: string): Promise<boolean> {
	return (await git(["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`], root)).exitCode === 0;
}

/** The main checkout's folder: the first entry git lists. */
export async function mainCheckout(repository: RepositoryLocation): Promise<string | null> {
	return (await mainCheckoutOf(repository)) ?? (basename(repository.commonDir) === ".git" ? dirname(repository.commonDir) : null);
}
