import * as v from "valibot";
import { writeStateFile } from "../state/dir.ts";
import { readStateJson } from "../state/json-file.ts";
import { FAILED_STAGES } from "./schema.ts";

export const LastRun = v.object({
	verb: v.picklist(["prepare", "test", "done"]),
	ok: v.boolean(),
	failed_stage: v.nullable(v.picklist(FAILED_STAGES)),
	head: v.nullable(v.string()),
	tree: v.nullable(v.string()),
	config_digest: v.string(),
	standalone: v.boolean(),
	time: v.string(),
	duration_s: v.number(),
});
export type LastRun = v.InferOutput<typeof LastRun>;

/** The last run of any gate verb (what `status` reports). */
export const readLastRun = (gitDir: string) => readStateJson(gitDir, "last-run.json", LastRun);
/** The last `done`: kept apart so that a `prepare` in between does not lift the unchanged-tree guard. */
export const readLastDone = (gitDir: string) => readStateJson(gitDir, "last-done.json", LastRun);

/**
 * Record a run for `status`; a `done` on the committed tree also becomes
 * the commit's verdict (what `unchanged_tree_rerun` consults) unless
 * `verdict` is false: a standalone run judged a dirty tree, and a run
 * stopped by tree drift may have been disturbed from outside.
 */
export async function writeLastRun(gitDir: string, run: LastRun, options: { verdict?: boolean } = {}): Promise<void> {
	const text = `${JSON.stringify(run, null, 2)}\n`;
	const verdict = run.verb === "done" && !run.standalone && options.verdict !== false;
	await Promise.all([writeStateFile(gitDir, "last-run.json", text), verdict ? writeStateFile(gitDir, "last-done.json", text) : undefined]);
}

export function configDigest(configText: string): string {
	return new Bun.CryptoHasher("sha256").update(configText).digest("hex");
}
