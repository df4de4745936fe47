import * as v from "valibot";
import { DryRunFlag } from "../contract/dry-run.ts";
import { FILE_ACTIONS } from "./providers.ts";

export const RefreshInput = v.strictObject({ dry_run: DryRunFlag });

export const RefreshData = v.strictObject({
	files: v.array(v.strictObject({ path: v.string(), action: v.picklist(FILE_ACTIONS) })),
	command: v.pipe(
		v.nullable(v.strictObject({ command: v.string(), args: v.array(v.string()), why: v.string() })),
		v.description("What agent configs start; null without agents."),
	),
});
export type RefreshData = v.InferOutput<typeof RefreshData>;
