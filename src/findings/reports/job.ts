import { firstNonBlankLine } from "../../text/first-line.ts";

/**
 * What a report parser needs to know about the job that produced the report.
 * `root` (the checkout root) is optional: when given, absolute paths inside it
 * are made relative, so that `file` reads the same as the paths an agent edits.
 */
export interface ReportJob {
	name: string;
	command: string;
	root?: string;
}

/**
 * A path as a report wrote it, made presentable: forward slashes (Windows
 * writers), no leading `./`, and relative to the job's root when it lies
 * inside it. Returns undefined for an empty path.
 */
export function reportPath(raw: string, job: ReportJob): string | undefined {
	let path = raw.trim().replaceAll("\\", "/");
	while (path.startsWith("./")) path = path.slice(2);
	const root = job.root?.replaceAll("\\", "/").replace(/\/+$/, "");
	if (root && path.startsWith(`${root}/`)) path = path.slice(root.length + 1);
	return path === "" ? undefined : path;
}

/** A positive integer from a number or a numeric string, else undefined. */
export function positiveInteger(value: unknown): number | undefined {
	const n = typeof value === "string" && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
	return typeof n === "number" && Number.isInteger(n) && n >= 1 ? n : undefined;
}

/** A report's message as a finding's summary: its first non-blank line, kept to one readable sentence's length. */
export function summaryLine(text: string | undefined, max = 500): string | undefined {
	const line = text === undefined ? undefined : firstNonBlankLine(text);
	return line !== undefined && line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
