import { readFile } from "node:fs/promises";
import * as v from "valibot";

/** A JSON file discern wrote, read back only if it still has `schema`'s shape: null when missing, unreadable or not that shape. */
export async function readJsonFile<S extends v.GenericSchema>(path: string, schema: S): Promise<v.InferOutput<S> | null> {
	try {
		const parsed = v.safeParse(schema, JSON.parse(await readFile(path, "utf8")));
		return parsed.success ? parsed.output : null;
	} catch {
		return null;
	}
}
