import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { link, lstat, readFile, rename, rm, writeFile } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import { readRegularFile } from "../platform/files.ts";
import { stateFolder, stateFolderToRead } from "../state/dir.ts";

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
const KEY_FILE = "proof-key";

/** The seal of `content`; null only when reading (`create: false`) and no usable key exists. Writing throws rather than return null. */
export async function sealOf(gitDir: string, content: Sealed, options: { create: boolean }): Promise<string | null> {
	const key = await proofKey(await commonDirOf(gitDir), options.create);
	return key ? sealWith(key, content) : null;
}

/**
 * What seals a Proof about to be written, its key read (or made) now: a gate
 * asks while its jobs run, so that its verdict does not wait on the key. A
 * key replaced in between seals a Proof that no longer holds, the safe side.
 * Throws as `sealOf` does when no key can be made.
 */
export async function sealer(gitDir: string): Promise<(content: Sealed) => string> {
	const key = await proofKey(await commonDirOf(gitDir), true);
	if (!key) throw Object.assign(new Error("the Proof seal key cannot be made usable"), { code: "EPERM" });
	return (content) => sealWith(key, content);
}

/** What a seal covers: text (as UTF-8), or bytes, or pieces of either one after another (the same seal as their concatenation). */
export type Sealed = string | Uint8Array | readonly (string | Uint8Array)[];

function sealWith(key: Buffer, content: Sealed): string {
	const hmac = createHmac("sha256", key);
	for (const piece of typeof content === "string" || content instanceof Uint8Array ? [content] : content) hmac.update(piece);
	return hmac.digest("hex");
}

export async function sealHolds(gitDir: string, content: Sealed, seal: unknown): Promise<boolean> {
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

/**
 * The repository's seal key. Reading (`create: false`): null when there is
 * none or it is not one (nothing seals, nothing holds). Writing (`create:
 * true`): a missing key is created exclusively; one that is malformed,
 * unreadable or not a regular file is replaced atomically (a temp file,
 * then a rename) by a fresh one — Proofs sealed under the old one stop
 * holding, which they already did — so a new Proof always seals. When no
 * key can be made, it throws a file-system error naming the key file
 * (the caller's write_denied): a Proof is never written without a seal.
 */
async function proofKey(commonDir: string, create: boolean): Promise<Buffer | null> {
	// Read every time, never cached: a long-running `discern mcp` must stop honouring a key that was deleted or replaced.
	// In `<common dir>/discern/`, reached through no link (state/dir.ts): a key elsewhere is no key, and none is made there.
	const folder = stateFolderToRead(commonDir, []);
	const key = folder === null ? null : await readKey(join(folder, KEY_FILE));
	if (key || !create) return key;
	// One maker at a time in this process: a gate asks for the key twice at once (its seal and its running-jobs record), and
	// two replacements of an unusable key would each put a fresh key in place, the later one voiding what the earlier sealed.
	const made = keyMaking.then(() => makeKey(commonDir));
	keyMaking = made.catch(() => undefined);
	return made;
}

let keyMaking: Promise<unknown> = Promise.resolve();

async function makeKey(commonDir: string): Promise<Buffer> {
	const existing = stateFolderToRead(commonDir, []);
	let key = existing === null ? null : await readKey(join(existing, KEY_FILE));
	if (!key) {
		const path = join(stateFolder(commonDir, [], { create: true }) as string, KEY_FILE);
		// Created exclusively and whole (written aside, then linked into place): two first runs at once (a gate's
		// seal and its running-jobs record) agree on one key, and neither reads the other's key half-written.
		const fresh = `${randomBytes(32).toString("hex")}\n`;
		const temporary = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
		const made = await writeFile(temporary, fresh, { mode: 0o600, flag: "wx" })
			.then(() => link(temporary, path))
			.then(
				() => true,
				(error: unknown) => {
					if ((error as { code?: string }).code !== "EEXIST") throw named(error, path);
					return false;
				},
			)
			.finally(() => rm(temporary, { force: true }).catch(() => undefined));
		key = await readKey(path);
		if (!key && !made) {
			// Something unusable is there: replace it whole, never write into it.
			await replaceKey(path, fresh);
			key = await readKey(path);
		}
		if (!key) throw Object.assign(new Error(`the Proof seal key ${path} cannot be made usable`), { code: "EPERM", path });
	}
	return key;
}

/** The key in a regular file of 64 hex digits; null for anything else (missing, a folder, a symlink, malformed, unreadable). */
async function readKey(path: string): Promise<Buffer | null> {
	// Opened without following a link, and only a regular file.
	const hex = readRegularFile(path, 4096)?.toString("utf8").trim() ?? "";
	return /^[0-9a-f]{64}$/.test(hex) ? Buffer.from(hex, "hex") : null;
}

async function replaceKey(path: string, fresh: string): Promise<void> {
	const temporary = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
	try {
		await writeFile(temporary, fresh, { mode: 0o600, flag: "wx" });
		// A folder where the key goes is discern's own path gone wrong: it goes (a rename cannot replace it).
		if ((await lstat(path).catch(() => null))?.isDirectory()) await rm(path, { recursive: true, force: true });
		await rename(temporary, path);
	} catch (error) {
		throw named(error, path);
	} finally {
		await rm(temporary, { force: true }).catch(() => undefined);
	}
}

/** A file-system error, reported against the key file (what a person has to look at). */
function named(error: unknown, path: string): unknown {
	if (typeof error === "object" && error !== null && "code" in error) return Object.assign(error, { path });
	return error;
}
