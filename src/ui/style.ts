/**
 * Minimal styling for human output. Color only when the caller says so
 * (TTY, no NO_COLOR, not CI); everything else is plain text.
 */
const CODES = { bold: [1, 22], dim: [2, 22], red: [31, 39], green: [32, 39], yellow: [33, 39], cyan: [36, 39] } as const;

export type Style = keyof typeof CODES;

export function paint(text: string, style: Style, color: boolean): string {
	if (!color) return text;
	const [open, close] = CODES[style];
	return `\u001B[${open}m${text}\u001B[${close}m`;
}

/** Should this process use color and live progress on the given stream? */
export function wantsColor(env: Readonly<Record<string, string | undefined>>, isTTY: boolean): boolean {
	if (!isTTY) return false;
	if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
	if (env.CI === "true" || env.CI === "1") return false;
	return env.TERM !== "dumb";
}

export const MARK = { ok: "✔", warn: "!", fail: "✖" } as const;
