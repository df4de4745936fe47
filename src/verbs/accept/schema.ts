import * as v from "valibot";
import { DryRunFlag } from "../../contract/dry-run.ts";
import type { Result } from "../../contract/envelope.ts";
import { CONSENT_DIGITS } from "../../proof/consent-digits.ts";
import { NestedRepository } from "../../worktree/nested-repos.ts";
import type { Journal } from "./journal.ts";

export const AcceptInput = v.strictObject({
	confirmed: v.optional(v.pipe(v.boolean(), v.description("The owner approved this landing in the conversation."))),
	target: v.optional(
		v.pipe(
			v.string(),
			v.maxLength(4096),
			v.description("Which worktree (id, path or branch, or a unique prefix of an id or branch); required from the main checkout."),
		),
	),
	sha: v.optional(
		v.pipe(
			v.string(),
			v.regex(
				new RegExp(`^[0-9a-fA-F]{${CONSENT_DIGITS},64}$`),
				`must be the commit from the Proof line (${CONSENT_DIGITS} to 64 hex digits: a shorter prefix could name another commit made to share it)`,
			),
			v.description("The commit the owner approved (from the Proof line): anything else is refused."),
		),
	),
	dry_run: DryRunFlag,
});
export type AcceptInput = v.InferOutput<typeof AcceptInput>;

export const AcceptData = v.strictObject({
	landed: v.boolean(),
	sha: v.nullable(v.string()),
	trunk: v.nullable(v.string()),
	previous_trunk_sha: v.nullable(v.string()),
	proof_line: v.nullable(v.string()),
	note_ref: v.nullable(v.string()),
	worktree_removed: v.boolean(),
	branch_deleted: v.boolean(),
	resources: v.strictObject({ destroyed: v.array(v.string()), failed: v.array(v.string()) }),
	worktree_files: v.pipe(
		v.strictObject({
			ignored: v.pipe(v.array(v.string()), v.description("Deleted with the worktree; the first 100.")),
			ignored_count: v.number(),
			untracked: v.pipe(v.array(v.string()), v.description("They stop the removal; the first 100.")),
			untracked_count: v.number(),
			edited_env: v.pipe(v.array(v.string()), v.description("Copied env files edited since: the worktree was kept.")),
			nested_repositories: v.pipe(v.array(NestedRepository), v.description("Repositories holding something only they have: the worktree was kept.")),
		}),
		v.description("What the worktree held beyond its commits when accept came to remove it."),
	),
	main_path: v.string(),
	consent: v.picklist(["confirmed", "pre_authorized", "asked", "none", "resumed"]),
	remaining: v.optional(v.array(v.string())),
});
export type AcceptData = v.InferOutput<typeof AcceptData>;

export type AcceptResult = Result<"accept", AcceptData>;

/** Nothing landed yet; the main checkout is where work goes on. */
export function emptyData(mainPath: string): AcceptData {
	return {
		landed: false,
		sha: null,
		trunk: null,
		previous_trunk_sha: null,
		proof_line: null,
		note_ref: null,
		worktree_removed: false,
		branch_deleted: false,
		resources: { destroyed: [], failed: [] },
		worktree_files: { ignored: [], ignored_count: 0, untracked: [], untracked_count: 0, edited_env: [], nested_repositories: [] },
		main_path: mainPath,
		consent: "none",
	};
}

/** What every result says of a landing its journal records: landed, which commit on which trunk (and what it was before), with which Proof. */
export function landedData(mainPath: string, journal: Pick<Journal, "sha" | "trunk" | "previous_trunk_sha" | "proof_line">): AcceptData {
	return {
		...emptyData(mainPath),
		landed: true,
		sha: journal.sha,
		trunk: journal.trunk,
		previous_trunk_sha: journal.previous_trunk_sha,
		proof_line: journal.proof_line,
	};
}
