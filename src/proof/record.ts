import * as v from "valibot";
import { isRecord } from "../contract/record.ts";
import { readStateFile, removeStateFile, writeStateFile } from "../state/dir.ts";
import { sealer, sealHolds } from "./seal.ts";

/**
 * What a Proof was judged against besides the tree: the trunk (name and
 * sha), the scopes that counted as changed (and why all of them, when the
 * branch is the trunk or git could not list the changes), and whether the
 * never-loosen check could compare with the trunk's config. A Proof is
 * reused only while every part of this is still what `done` would judge now.
 */
export const Judgement = v.strictObject({
	trunk: v.strictObject({ name: v.nullable(v.string()), sha: v.nullable(v.string()) }),
	scopes_changed: v.array(v.string()),
	all_scopes_because: v.nullable(v.string()),
	never_loosen: v.picklist(["checked", "skipped"]),
	/** How the branch changed the gate's own jobs and scopes against the trunk (see proof/gate-changes.ts). */
	gate_changes: v.array(v.string()),
});
export type Judgement = v.InferOutput<typeof Judgement>;

export function sameJudgement(a: Judgement, b: Judgement): boolean {
	return JSON.stringify(v.parse(Judgement, a)) === JSON.stringify(v.parse(Judgement, b));
}

export const ProofRecord = v.object({
	// Version 1 records carry no judgement: they are never reused.
	version: v.literal(2),
	head: v.string(),
	tree: v.string(),
	branch: v.string(),
	config_digest: v.string(),
	judgement: Judgement,
	jobs: v.array(v.object({ label: v.string(), stage: v.string(), duration_s: v.number() })),
	standards: v.array(v.unknown()),
	time: v.string(),
	duration_s: v.number(),
	line: v.string(),
});
export type ProofRecord = v.InferOutput<typeof ProofRecord>;

/** `<git dir>/discern/proof.json`, through no link (state/dir.ts). */
const PROOF_FILE = "proof.json";

/** The Proof marker, only when its seal holds (see seal.ts): a marker written by hand reads as none. */
export async function readProof(gitDir: string): Promise<ProofRecord | null> {
	let raw: unknown;
	try {
		raw = JSON.parse(readStateFile(gitDir, PROOF_FILE) ?? "null");
	} catch {
		return null;
	}
	if (!isRecord(raw)) return null;
	const { seal, ...record } = raw;
	if (!(await sealHolds(gitDir, JSON.stringify(record), seal))) return null;
	const parsed = v.safeParse(ProofRecord, record);
	return parsed.success ? parsed.output : null;
}

/** `sealing`: the sealer asked for earlier (see `sealer`); asked here otherwise. */
export async function writeProof(gitDir: string, proof: ProofRecord, sealing: Promise<(content: string) => string> = sealer(gitDir)): Promise<void> {
	const seal = (await sealing)(JSON.stringify(proof));
	await writeStateFile(gitDir, PROOF_FILE, `${JSON.stringify({ ...proof, seal }, null, 2)}\n`);
}

export async function removeProof(gitDir: string): Promise<void> {
	removeStateFile(gitDir, PROOF_FILE);
}
