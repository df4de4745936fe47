import { readFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * The branch and commit HEAD names, read from git's files rather than by
 * starting git: the logbook records where every verb ran, and that must not
 * cost a process. Null wherever the files say something unusual (reftable,
 * a symbolic ref outside refs/heads, a ref not yet written): the logbook
 * then records less, never something wrong.
 */
export interface HeadFacts {
	branch: string | null;
	head: string | null;
}

const SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

export async function readHeadFiles(gitDir: string, commonDir: string): Promise<HeadFacts> {
	const text = (await readFile(join(gitDir, "HEAD"), "utf8").catch(() => "")).trim();
	if (SHA.test(text)) return { branch: null, head: text };
	const ref = /^ref: (refs\/heads\/\S+)$/.exec(text)?.[1];
	if (!ref) return { branch: null, head: null };
	return { branch: ref.slice("refs/heads/".length), head: await resolveRef(commonDir, ref) };
}

async function resolveRef(commonDir: string, ref: string): Promise<string | null> {
	const loose = (await readFile(join(commonDir, ref), "utf8").catch(() => "")).trim();
	if (SHA.test(loose)) return loose;
	const packed = await readFile(join(commonDir, "packed-refs"), "utf8").catch(() => "");
	for (const line of packed.split("\n")) {
		const [sha, name] = line.split(" ");
		if (name === ref && sha && SHA.test(sha)) return sha;
	}
	return null;
}
