import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { readBlobs } from "../object-check.ts";
import type { ObjectReader } from "../object-reader.ts";

/**
 * An object folder of discern's own, made fresh for one git call and
 * holding only blobs read back and hashed, for the git processes that must
 * read content themselves (`check-attr --cached` reads `.gitattributes`
 * blobs, `checkout-index` writes converted files). Pointed at with
 * GIT_OBJECT_DIRECTORY, such a process cannot be answered from the
 * repository's store, where two packs can hold different bytes under one id
 * and git takes them from whichever pack it used last. Fresh each time: it
 * sits in a temp folder a job can write to (a loose object, a pack,
 * `info/alternates`), and a folder made after the jobs ended holds nothing of theirs.
 *
 * `repository`: the folder is a whole git dir of its own too (the objects,
 * a HEAD, a config naming the repository's object format), and git is
 * pointed at it instead of the repository, with no global or system
 * configuration: for a call that writes content (`checkout-index`), which
 * would run any filter driver the repository's configuration defines for
 * an attribute its `info/attributes` sets. A job can write both (a macro
 * the committed `.gitattributes` defines hides the filter's name): here
 * git can find no program to run, and converts only as the commit's own
 * `.gitattributes` (read from the index) say.
 *
 * `use` gets the environment that points git at it; the folder goes after.
 * A string when the blobs cannot be read back as hashed.
 */
export async function withPrivateStore<T>(
	parent: string,
	reader: ObjectReader,
	blobs: readonly string[],
	use: (env: Record<string, string>) => Promise<T>,
	options: { repository?: { idBytes: number } } = {},
): Promise<T | string> {
	const wanted = [...new Set(blobs)];
	const read = await readBlobs(reader, wanted);
	if (typeof read === "string") return read;
	const folder = await mkdtemp(join(parent, "objects-"));
	const objects = options.repository ? join(folder, "objects") : folder;
	try {
		await Promise.all(
			wanted.map(async (id, n) => {
				const content = read[n] as Uint8Array;
				// A loose object: the zlib-deflated `blob <size>\0<content>`, at <2 hex>/<the rest>.
				await mkdir(join(objects, id.slice(0, 2)), { recursive: true });
				await writeFile(join(objects, id.slice(0, 2), id.slice(2)), deflateSync(Buffer.concat([Buffer.from(`blob ${content.byteLength}\0`), content])));
			}),
		);
		const store = { GIT_OBJECT_DIRECTORY: objects, GIT_ALTERNATE_OBJECT_DIRECTORIES: "" };
		if (!options.repository) return await use(store);
		await makeGitDir(folder, options.repository.idBytes);
		// Its own common dir too: one named in the environment would bring back that repository's configuration and info/attributes.
		return await use({ ...store, GIT_DIR: folder, GIT_COMMON_DIR: folder, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" });
	} finally {
		await rm(folder, { recursive: true, force: true });
	}
}

/** The least git takes for a repository: HEAD, refs, objects, and a config naming the object format (SHA-256 ids need version 1). */
async function makeGitDir(folder: string, idBytes: number): Promise<void> {
	const config = idBytes === 32 ? "[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectformat = sha256\n" : "[core]\n\trepositoryformatversion = 0\n";
	await Promise.all([
		mkdir(join(folder, "refs")),
		// Made even when no blob is: git takes no folder without one for a repository.
		mkdir(join(folder, "objects"), { recursive: true }),
		writeFile(join(folder, "HEAD"), "ref: refs/heads/main\n"),
		writeFile(join(folder, "config"), config),
	]);
}
