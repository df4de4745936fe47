import { basename, join } from "node:path";
import type * as v from "valibot";
import { fail, type Result } from "../../contract/envelope.ts";
import { ref, type Say } from "../../contract/refer.ts";
import { clip, clipList } from "../../text/clip.ts";
import { noun, plural } from "../../text/plural.ts";
import { shellCommand } from "../../text/shell-quote.ts";
import { describeBlocking, type NestedRepository } from "../../worktree/nested-repos.ts";
import { keptReasons } from "../../worktree/person-files.ts";
import type { WorktreeDropData, WorktreeDropInput } from "./schema.ts";

type Refusal = Omit<Extract<Result<"worktree drop", WorktreeDropData>, { ok: false }>, "data">;

/** How many repositories a refusal spells out a `mv` for; the message names them all (clipped). */
const MOVES_SHOWN = 3;

/**
 * The refusal that names each repository inside a worktree whose removal
 * would lose something (or, untracked, that the saved work cannot hold),
 * with what it would lose, and how to take it out of harm's way.
 */
export function nestedRefusal(
	worktree: string,
	blocking: readonly NestedRepository[],
	say: Say,
	input: v.InferOutput<typeof WorktreeDropInput>,
	lead: string,
	tail: string,
): Refusal {
	const named = describeBlocking(blocking);
	// A checkout moves out whole; a submodule repository whose checkout is gone is copied out of the git dir.
	const moves = blocking
		.slice(0, MOVES_SHOWN)
		.map((repository) =>
			repository.checked_out
				? `\`${shellCommand("mv", "-n", "--", join(worktree, repository.path), `${worktree}-${basename(repository.path)}`)}\``
				: `\`${shellCommand("cp", "-a", "--", repository.git_dir, `${worktree}-${basename(repository.path)}.git`)}\``,
		);
	// An untracked one stops a drop whatever it holds; a submodule or an ignored one only while it holds something only there.
	const settled = blocking.some((repository) => repository.kind !== "untracked");
	const again = say`${ref("worktree drop", { id: input.id, ...(input.force ? { force: true } : {}) })}`;
	return fail(
		"worktree drop",
		"dirty_worktree",
		`${lead}: it holds ${plural(blocking.length, "git repository", "git repositories")} of its own that removing it would lose: ${clip(clipList(named, 10), 1000)}.${tail}`,
		[
			`Move ${noun(blocking.length, "it", "them")} out of the worktree first (${moves.join("; ")}${blocking.length > MOVES_SHOWN ? "; …" : ""})${settled ? ", or push the commits and commit or discard the changes of a submodule or ignored one there" : ""}; then run ${again} again.`,
		],
	);
}

/**
 * The refusal that names each env file `start` copied into the worktree and
 * the person edited since, with no copy of the edit in the main checkout
 * (person-files.ts): accept kept the worktree for it, and drop does not
 * delete it either. `--force` does not override this: its snapshot is a git
 * commit, and an env file holds secrets, which discern never writes into the
 * repository's objects (they outlive the ref, and travel with a clone or a
 * mirror push). The person saves the edit (or deletes the file) themselves.
 */
export function editedEnvRefusal(
	worktree: string,
	mainRoot: string,
	edited: readonly string[],
	say: Say,
	input: v.InferOutput<typeof WorktreeDropInput>,
	lead: string,
	tail: string,
): Refusal {
	const again = say`${ref("worktree drop", { id: input.id, ...(input.force ? { force: true } : {}) })}`;
	const copies = edited.slice(0, MOVES_SHOWN).map((path) => `\`${shellCommand("cp", "--", join(worktree, path), join(mainRoot, path))}\``);
	return fail(
		"worktree drop",
		"dirty_worktree",
		`${lead}: ${keptReasons({ edited_env: edited, repositories: [] }).join("")}.${input.force ? " --force does not delete it: an env file holds secrets, which discern never saves into a git commit, so removing it would lose the edit for good." : ""}${tail}`,
		[
			`Save the edit where it belongs (into the main checkout's copy: ${copies.join("; ")}${edited.length > MOVES_SHOWN ? "; …" : ""}), or delete ${noun(edited.length, "the file", "the files")} there yourself if the edit is not wanted; then run ${again} again.`,
		],
	);
}
