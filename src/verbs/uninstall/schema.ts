import * as v from "valibot";
import { UNWIRE_ACTIONS } from "../../agents/providers.ts";
import { DryRunFlag } from "../../contract/dry-run.ts";

export const UninstallInput = v.strictObject({
	dry_run: DryRunFlag,
	yes: v.optional(v.pipe(v.boolean(), v.description("Remove what the plan lists without asking."))),
});

/** What each listed path is. */
export const UNINSTALL_KINDS = ["instructions", "pointer", "mcp", "hook", "state", "config", "source", "map", "refs"] as const;

export const UninstallData = v.strictObject({
	files: v.pipe(
		v.array(
			v.strictObject({
				path: v.pipe(v.string(), v.description("Relative to the checkout (state: to the checkout when the git dir is inside it); refs by name.")),
				kind: v.picklist(UNINSTALL_KINDS),
				action: v.pipe(
					v.picklist(UNWIRE_ACTIONS),
					v.description(
						"delete: removed; strip: discern's entry taken out, the rest kept; move: setup's fold of a person's instruction file moved back to its own name; keep: left as it is.",
					),
				),
				note: v.string(),
			}),
		),
		v.description("Every file discern wrote or merged into that is there, its runtime state, and what is kept, each with its action."),
	),
	worktrees: v.pipe(
		v.array(v.strictObject({ path: v.string(), branch: v.nullable(v.string()) })),
		v.description("Linked worktrees, which refuse uninstall (active_worktrees)."),
	),
	resources: v.pipe(v.array(v.string()), v.description("Resource ledgers, which refuse uninstall (provisioned_resources).")),
	removed: v.pipe(v.boolean(), v.description("Whether the plan was carried out.")),
});
export type UninstallData = v.InferOutput<typeof UninstallData>;
