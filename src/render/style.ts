import { colors, stripAnsi } from "consola/utils";

/**
 * Styling for human output, on consola's color utilities: nothing in discern
 * writes terminal escape codes by hand. Color only when the caller says so
 * (`wantsColor`); consola's own detection (NO_COLOR, a terminal on stdout)
 * can switch it off as well, never on.
 */
const STYLES = { bold: colors.bold, dim: colors.dim, red: colors.red, green: colors.green, yellow: colors.yellow, cyan: colors.cyan } as const;

export type Style = keyof typeof STYLES;

export function paint(text: string, style: Style, color: boolean): string {
	return color ? STYLES[style](text) : text;
}

/** discern's own colored text without its colors (usage text that may travel inside a JSON result). */
export const plain: (text: string) => string = stripAnsi;

/** `CI` set to anything but an empty string, `0` or `false`: a build machine, never a person. */
export function isCi(env: Readonly<Record<string, string | undefined>>): boolean {
	const ci = env.CI;
	return ci !== undefined && ci !== "" && ci !== "0" && ci.toLowerCase() !== "false";
}

/** Should this process use color and live progress on the given stream? */
export function wantsColor(env: Readonly<Record<string, string | undefined>>, isTTY: boolean): boolean {
	if (!isTTY) return false;
	if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
	if (isCi(env)) return false;
	return env.TERM !== "dumb";
}

export const MARK = { ok: "✔", warn: "!", fail: "✖" } as const;
