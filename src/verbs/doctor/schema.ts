import * as v from "valibot";

export const DoctorInput = v.strictObject({
	verbose: v.optional(v.pipe(v.boolean(), v.description("Include details of passing checks."))),
});

export const CHECK_STATES = ["ok", "warn", "fail"] as const;

export const Check = v.strictObject({
	id: v.pipe(v.string(), v.description("Stable id, e.g. `git_version` or `job:test`.")),
	title: v.string(),
	state: v.picklist(CHECK_STATES),
	detail: v.string(),
	fix: v.optional(v.pipe(v.string(), v.description("What to do about a warn or fail."))),
});
export type Check = v.InferOutput<typeof Check>;

export const DoctorData = v.strictObject({
	checks: v.array(Check),
	summary: v.strictObject({ ok: v.number(), warn: v.number(), fail: v.number() }),
});
export type DoctorData = v.InferOutput<typeof DoctorData>;
