import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { readBlobs } from "./object-check.ts";
import type { ObjectReader } from "./object-reader.ts";

/**
 * An object folder of discern's own, holding only blobs read back and
 * hashed, for the git processes that must read content themselves
 * (`check-attr --cached` reads `.gitattributes` blobs, `checkout-index`
 * writes converted files). Pointed at with GIT_OBJECT_DIRECTORY, such a
 * process cannot be answered from the repository's store, where two packs
 * can hold different bytes under one id and git takes them from whichever
 * pack it used last: the hashed answer one process got says nothing of
 * another's.
 */
export interface PrivateStore {
	/** The environment that points git at this folder alone (no alternates). */
	env: Record<string, string>;
	/** Read `blobs` back (hashed) and file them here; else what is wrong. */
	hold(blobs: readonly string[]): Promise<string | null>;
}

export async function openPrivateStore(folder: string, reader: ObjectReader): Promise<PrivateStore> {
	await mkdir(join(folder, "info"), { recursive: true });
	await mkdir(join(folder, "pack"), { recursive: true });
	const held = new Set<string>();
	return {
		env: { GIT_OBJECT_DIRECTORY: folder, GIT_ALTERNATE_OBJECT_DIRECTORIES: "" },
		async hold(blobs) {
			const wanted = [...new Set(blobs)].filter((id) => !held.has(id));
			const read = await readBlobs(reader, wanted);
			if (typeof read === "string") return read;
			await Promise.all(
				wanted.map(async (id, n) => {
					const content = read[n] as Uint8Array;
					// A loose object: the zlib-deflated `blob <size>\0<content>`, at objects/<2 hex>/<the rest>.
					await mkdir(join(folder, id.slice(0, 2)), { recursive: true });
					await writeFile(join(folder, id.slice(0, 2), id.slice(2)), deflateSync(Buffer.concat([Buffer.from(`blob ${content.byteLength}\0`), content])));
					held.add(id);
				}),
			);
			return null;
		},
	};
}
