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

/** The first non-blank line of a text, trimmed and kept to one readable sentence's length. */
export function firstLine(text: string | undefined, max = 500): string | undefined {
	if (text === undefined) return undefined;
	let start = 0;
	while (start < text.length) {
		const newline = text.indexOf("\n", start);
		const end = newline < 0 ? text.length : newline;
		const line = text.slice(start, end).trim();
		if (line !== "") return line.length > max ? `${line.slice(0, max - 1)}…` : line;
		start = end + 1;
	}
	return undefined;
}
