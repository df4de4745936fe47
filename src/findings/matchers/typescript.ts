/**
 * tsc (and tsgo, vue-tsc): `src/a.ts(3,5): error TS2322: message` without
 * --pretty, `src/a.ts:3:5 - error TS2322: message` with it (a terminal's
 * default). A message's elaboration follows on indented lines; the
 * non-pretty form's are appended to the message. The pretty summary table
 * (`     2  src/a.ts:1`) and related-information lines are not findings.
 */
import { type Finding, finding, type Matcher, position, severityOf } from "./types.ts";

const PLAIN = /^(\S.*?)\((\d+),(\d+)\): (error|warning|message) (TS\d+): (.*)$/;
const PRETTY = /^(\S.*?):(\d+):(\d+) - (error|warning|message) (TS\d+): (.*)$/;
/** Errors with no file (a bad tsconfig option, a missing --project). */
const GLOBAL = /^(error|warning) (TS\d+): (.*)$/;

const MAX_ELABORATION = 5;

function match(lines: readonly string[]): Finding[] {
	const found: Finding[] = [];
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i] ?? "";
		const plain = PLAIN.exec(line);
		const m = plain ?? PRETTY.exec(line);
		if (m) {
			let message = m[6] ?? "";
			if (plain) {
				const more: string[] = [];
				while (/^ {2,}\S/.test(lines[i + 1] ?? "") && !PLAIN.test((lines[i + 1] ?? "").trim())) {
					i++;
					if (more.length < MAX_ELABORATION) more.push((lines[i] ?? "").trim());
				}
				if (more.length > 0) message = `${message} ${more.join(" ")}`;
			}
			found.push(finding({ file: m[1], line: position(m[2]), col: position(m[3]), rule: m[5], message, severity: severityOf(m[4] ?? "") }));
			continue;
		}
		const global = GLOBAL.exec(line);
		if (global) found.push(finding({ rule: global[2], message: global[3] ?? "", severity: severityOf(global[1] ?? "") }));
	}
	return found;
}

export const typescript: Matcher = { name: "tsc", words: ["tsc", "tsgo", "vue-tsc", "tsc-files"], match };
