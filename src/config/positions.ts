/**
 * Where keys are written in a TOML text, for pointing a person at a line.
 * The index itself comes from the TOML editor's syntax tree
 * (`indexKeyPositions` in edit/toml.ts), loaded only when a config has
 * problems to point at: toml-patch is a quarter of a megabyte of code
 * that a valid config, read on every run, never needs.
 */
export interface Position {
	line: number;
	col: number;
}

/** Each written dotted key's first position. */
export type KeyPositions = Map<string, Position>;

/** The position of the longest prefix of `path` that was written down. */
export function positionOf(positions: KeyPositions, path: readonly (string | number)[]): Position | undefined {
	for (let length = path.length; length > 0; length--) {
		const found = positions.get(path.slice(0, length).map(String).join("."));
		if (found) return found;
	}
	return undefined;
}
