import * as v from "valibot";

/** The `dry_run` flag of every verb that changes something: the plan, and nothing done. */
export const DryRunFlag = v.optional(v.pipe(v.boolean(), v.description("Return the plan; run nothing.")));
