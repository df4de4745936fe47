/**
 * rustc and cargo (build, check, clippy, test). A diagnostic is a header,
 * `error[E0308]: message` or `warning: message`, then ` --> src/main.rs:3:5`
 * and a code frame whose `= note:`/`= help:` lines name the lint
 * (`#[warn(clippy::len_zero)]`, `` `-D clippy::len-zero` implied by `-D warnings` ``,
 * `#[allow(unused_variables)]`). Headers without a location (`error: could not
 * compile …`, `warning: … generated 3 warnings`) are summaries, not findings.
 * A failing test is its `---- name stdout ----` section with the
 * `panicked at src/lib.rs:12:5:` line (and the message after it).
 */
import { type Finding, finding, type Matcher, position, severityOf } from "./types.ts";

const HEADER = /^(error|warning)(?:\[(E\d{4})\])?: (.*)$/;
const ARROW = /^\s*--> (.+?):(\d+):(\d+)\s*$/;
const LINT = [/#\[(?:warn|deny|forbid|allow)\(([\w:]+)\)\]/, /`-[DW] ([\w:-]+)` implied by/];
const TEST_SECTION = /^---- (\S+) stdout ----$/;
/** Since Rust 1.73: `thread 'name' panicked at src/lib.rs:3:5:` (with ` (12345)` after the name since 1.87), the message on the next line. */
const PANIC_NEW = /^thread '([^']*)'(?: \(\d+\))? panicked at (.+?):(\d+):(\d+):$/;
/** Before 1.73: `thread 'name' panicked at 'message', src/lib.rs:3:5`. */
const PANIC_OLD = /^thread '([^']*)' panicked at '(.*)', (.+?):(\d+):(\d+)$/;

function lintIn(lines: readonly string[], from: number): string | undefined {
	let rule: string | undefined;
	for (let i = from; i < lines.length && i < from + 60; i++) {
		const line = lines[i] ?? "";
		if (HEADER.test(line) || (line !== "" && !/^\s/.test(line) && !/^\d+\s*\|/.test(line))) break;
		for (const pattern of LINT) {
			const m = pattern.exec(line);
			// `#[allow(…)]` in "to override" names the lint in its canonical (underscore) spelling.
			if (m?.[1] && (rule === undefined || line.includes("#[allow("))) rule = m[1];
		}
	}
	return rule?.replaceAll("-", "_");
}

function match(lines: readonly string[]): Finding[] {
	const found: Finding[] = [];
	let test: string | undefined;
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i] ?? "";
		const section = TEST_SECTION.exec(line);
		if (section) {
			test = section[1];
			continue;
		}
		const header = HEADER.exec(line);
		if (header) {
			const arrow = ARROW.exec(lines[i + 1] ?? "");
			if (!arrow) continue;
			found.push(
				finding({
					file: arrow[1],
					line: position(arrow[2]),
					col: position(arrow[3]),
					rule: header[2] ?? lintIn(lines, i + 2),
					message: header[3] ?? "",
					severity: severityOf(header[1] ?? ""),
				}),
			);
			continue;
		}
		const panic = PANIC_NEW.exec(line);
		if (panic) {
			const name = test ?? panic[1] ?? "";
			const message = (lines[i + 1] ?? "").trim();
			found.push(
				finding({ file: panic[2], line: position(panic[3]), col: position(panic[4]), message: `\`${name}\`: ${message || "panicked"}`, severity: "error" }),
			);
			continue;
		}
		const old = PANIC_OLD.exec(line);
		if (old)
			found.push(finding({ file: old[3], line: position(old[4]), col: position(old[5]), message: `\`${test ?? old[1]}\`: ${old[2]}`, severity: "error" }));
	}
	return found;
}

export const rust: Matcher = { name: "rustc", words: ["cargo", "rustc", "clippy-driver", "cargo-clippy", "cargo-nextest"], match };
