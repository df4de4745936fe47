import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";

/**
 * A Proof marker is a file in the git admin dir, which anything running as
 * the user can write. Each marker carries a seal: an HMAC of its content
 * under a key kept in the repository's common git dir, created once with
 * mode 0600. A marker written by hand (say, copied from last-run.json by an
 * agent that wants a green result without a green run) has no valid seal
 * and is never reused, so neither `done` nor `accept` can be talked into a
 * Proof the gate did not give.
 *
 * This is tamper evidence, not a defence against a process that sets out to
 * read the key: code running as the same user can read it, as it could move
 * the trunk by hand. It makes a forged Proof a deliberate act that has to
 * reach past discern, never a file edit.
 */
const KEY_FILE = join("discern", "proof-key");

export async function sealOf(gitDir: string, content: string, options: { create: boolean }): Promise<string | null> {
	const key = await proofKey(await commonDirOf(gitDir), options.create);
	return key ? createHmac("sha256", key).update(content).digest("hex") : null;
}

export async function sealHolds(gitDir: string, content: string, seal: unknown): Promise<boolean> {
	if (typeof seal !== "string" || !/^[0-9a-f]{64}$/.test(seal)) return false;
	const expected = await sealOf(gitDir, content, { create: false });
	return expected !== null && timingSafeEqual(Buffer.from(expected, "hex"), Buffer.from(seal, "hex"));
}

/** A linked worktree's git dir names the common dir in its `commondir` file; the main checkout's is its own. */
async function commonDirOf(gitDir: string): Promise<string> {
	const pointer = (await readFile(join(gitDir, "commondir"), "utf8").catch(() => null))?.trim();
	if (!pointer) return gitDir;
	return isAbsolute(pointer) ? pointer : resolve(gitDir, pointer);
}

const keys = new Map<string, Buffer>();

async function proofKey(commonDir: string, create: boolean): Promise<Buffer | null> {
	const path = join(commonDir, KEY_FILE);
	const known = keys.get(path);
	if (known) return known;
	let text = await readFile(path, "utf8").catch(() => null);
	if (text === null && create) {
		await mkdir(join(commonDir, "discern"), { recursive: true });
		// Created exclusively: two first runs at once agree on one key.
		await writeFile(path, `${randomBytes(32).toString("hex")}\n`, { mode: 0o600, flag: "wx" }).catch((error: unknown) => {
			if ((error as { code?: string }).code !== "EEXIST") throw error;
		});
		text = await readFile(path, "utf8");
	}
	const hex = text?.trim() ?? "";
	if (!/^[0-9a-f]{64}$/.test(hex)) return null;
	const key = Buffer.from(hex, "hex");
	keys.set(path, key);
	return key;
}
