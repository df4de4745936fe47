import { expandGlob, globProblem } from "../../src/scopes/glob.ts";
import { classEnd } from "../../src/scopes/glob-match.ts";

/**
 * The scope glob dialect as one RegExp over a whole path: its reference
 * semantics, written the obvious way, that the linear-time matcher in
 * src/scopes is held to. It backtracks on pathological patterns (many
 * `**\/`), which is why discern does not match with it.
 */
export function globRegExp(pattern: string): RegExp {
	const problem = globProblem(pattern);
	if (problem) throw new Error(`invalid glob \`${pattern}\`: ${problem}`);
	return new RegExp(`^(?:${sourceOf(expandGlob(pattern) as string[])})$`);
}

/** Capture groups used so far in the RegExp being built (backreferences number them). */
interface Groups {
	count: number;
}

function sourceOf(alternatives: readonly string[]): string {
	const groups: Groups = { count: 0 };
	return alternatives.map((alternative) => alternativeSource(alternative, groups)).join("|");
}

function alternativeSource(alternative: string, groups: Groups): string {
	let body = alternative;
	let anchored = false;
	if (body.startsWith("/")) {
		anchored = true;
		body = body.slice(1);
	}
	if (body.endsWith("/")) body += "**";
	if (body.includes("/")) anchored = true;
	const segments = body.split("/");
	let source = "";
	let needSeparator = false;
	segments.forEach((segment, index) => {
		const last = index === segments.length - 1;
		if (segment === "**") {
			// `**` at the end is "everything beneath"; elsewhere zero or more directories.
			source += last ? (needSeparator ? "/.+" : ".+") : needSeparator ? "/(?:.+/)?" : "(?:.+/)?";
			needSeparator = false;
			return;
		}
		source += (needSeparator ? "/" : "") + segmentSource(segment, groups);
		needSeparator = true;
	});
	const last = segments.at(-1) ?? "";
	if (!/[*?[]/.test(last)) source += "(?:/.+)?";
	return anchored ? source : `(?:.+/)?${source}`;
}

/**
 * One segment. Between its `*`s lie fixed-length chunks; matching each
 * middle chunk at its leftmost place is always right for a glob, so it is
 * made atomic (a lookahead captured, then consumed by backreference: JS has
 * no atomic groups). Plain `[^/]*` runs would backtrack exponentially on
 * `*a*a*a*b` against a long name.
 */
function segmentSource(segment: string, groups: Groups): string {
	const chunks = [""];
	const append = (source: string) => {
		chunks[chunks.length - 1] += source;
	};
	for (let index = 0; index < segment.length; index++) {
		const char = segment[index] ?? "";
		if (char === "*") {
			while (segment[index + 1] === "*") index++;
			chunks.push("");
		} else if (char === "?") {
			append("[^/]");
		} else if (char === "[") {
			const end = classEnd(segment, index);
			append(classSource(segment.slice(index + 1, end)));
			index = end;
		} else {
			append(char.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"));
		}
	}
	const [first = "", ...rest] = chunks;
	const last = rest.pop();
	if (last === undefined) return first;
	let source = first;
	for (const chunk of rest) {
		groups.count++;
		source += `(?=([^/]*?${chunk}))\\${groups.count}`;
	}
	return `${source}[^/]*${last}`;
}

function classSource(body: string): string {
	const negated = body.startsWith("!") || body.startsWith("^");
	const members = (negated ? body.slice(1) : body).replace(/[\\\]^[]/g, "\\$&");
	// A negated class must still not cross a directory boundary.
	return negated ? `[^${members}/]` : `[${members}]`;
}
