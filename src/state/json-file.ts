import * as v from "valibot";
import { readStateFile } from "./dir.ts";

/**
 * A JSON state file discern wrote (`<root>/discern/<relative>`), read back only if it still has `schema`'s shape:
 * null when missing, unreadable, reached only through a link (state/dir.ts), or not that shape.
 */
export async function readStateJson<S extends v.GenericSchema>(root: string, relative: string, schema: S): Promise<v.InferOutput<S> | null> {
	const text = readStateFile(root, relative);
	if (text === null) return null;
	try {
		const parsed = v.safeParse(schema, JSON.parse(text));
		return parsed.success ? parsed.output : null;
	} catch {
		return null;
	}
}
