import { mkdtemp, rm, writeFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { readBlobs } from "./object-check.ts";
import type { ObjectReader } from "./object-reader.ts";

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
 * `use` gets the environment that points git at it; the folder goes after.
 * A string when the blobs cannot be read back as hashed.
 */
export async function withPrivateStore<T>(parent: string, reader: ObjectReader, blobs: readonly string[], use: (env: Record<string, string>) => Promise<T>): Promise<T | string> {
	const wanted = [...new Set(blobs)];
	const read = await readBlobs(reader, wanted);
	if (typeof read === "string") return read;
	const folder = await mkdtemp(join(parent, "objects-"));
	try {
		await Promise.all(
			wanted.map(async (id, n) => {
				const content = read[n] as Uint8Array;
				// A loose object: the zlib-deflated `blob <size>\0<content>`, at <2 hex>/<the rest>.
				await mkdir(join(folder, id.slice(0, 2)), { recursive: true });
				await writeFile(join(folder, id.slice(0, 2), id.slice(2)), deflateSync(Buffer.concat([Buffer.from(`blob ${content.byteLength}\0`), content])));
			}),
		);
		return await use({ GIT_OBJECT_DIRECTORY: folder, GIT_ALTERNATE_OBJECT_DIRECTORIES: "" });
	} finally {
		await rm(folder, { recursive: true, force: true });
	}
}
