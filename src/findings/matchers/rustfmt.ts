/**
 * rustfmt's check (`cargo fmt --check`, `rustfmt --check`): for each stretch
 * of a file it would format differently, a header and a diff of it —
 * `Diff in /abs/src/lib.rs:12:` (rustfmt 1.6 on), `Diff in /abs/src/lib.rs
 * at line 12:` (1.5 and before) — then context lines (` `), the lines as
 * they are (`-`) and as rustfmt would write them (`+`). One finding per
 * hunk. The header's number is the hunk's first line, often a line of
 * context, so the finding is placed at the first changed line: the header's
 * number plus the context lines before it (context and `-` lines are lines
 * of the file as it is).
 */
import { type Finding, finding, type Matcher, position } from "./types.ts";

const HEADER = /^Diff in (.+?)(?::(\d+):| at line (\d+):)$/;
/** A changed line longer than this is not quoted in the message: a person reads the file at the line. */
const QUOTE_LIMIT = 80;

function match(lines: readonly string[]): Finding[] {
	const found: Finding[] = [];
	for (let i = 0; i < lines.length; i++) {
		const header = HEADER.exec(lines[i] ?? "");
		const start = position(header?.[2] ?? header?.[3]);
		if (!header?.[1] || start === undefined) continue;
		let context = 0;
		let changed: string | undefined;
		for (let j = i + 1; j < lines.length; j++) {
			const text = lines[j] ?? "";
			if (text.startsWith(" ")) {
				context++;
				continue;
			}
			if (text.startsWith("-") || text.startsWith("+")) changed = text;
			break;
		}
		const removed = changed?.startsWith("-") ? changed.slice(1).trim() : "";
		const quote = removed !== "" && removed.length <= QUOTE_LIMIT ? `: \`${removed}\`` : "";
		found.push(
			finding({
				file: header[1],
				line: changed === undefined ? start : start + context,
				message: `not formatted as rustfmt would format it${quote}`,
				severity: "error",
			}),
		);
	}
	return found;
}

export const rustfmt: Matcher = { name: "rustfmt", words: ["rustfmt", "cargo fmt", "cargo-fmt"], match };
