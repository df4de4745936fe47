/**
 * Prettier `--check`: `[warn] src/a.ts` for each file it would format
 * differently (a file-level finding), and `[error] src/a.ts: SyntaxError:
 * message (3:5)` for a file it cannot parse. Its closing `[warn] Code style
 * issues found …` line is not a file.
 */
import { type Finding, finding, type Matcher, position } from "./types.ts";

/** A path with no spaces and an extension: prose after `[warn]` is not a file. */
const UNFORMATTED = /^\[warn\] (\S+\.[\w]+)$/;
const UNPARSABLE = /^\[error\] (\S+\.[\w]+): (\w*Error): (.*?)(?: \((\d+):(\d+)\))?$/;

function match(lines: readonly string[]): Finding[] {
	const found: Finding[] = [];
	for (const line of lines) {
		const unformatted = UNFORMATTED.exec(line);
		if (unformatted) {
			found.push(finding({ file: unformatted[1], message: "not formatted as Prettier would format it", severity: "error" }));
			continue;
		}
		const bad = UNPARSABLE.exec(line);
		if (bad) found.push(finding({ file: bad[1], line: position(bad[4]), col: position(bad[5]), rule: bad[2], message: bad[3] ?? "", severity: "error" }));
	}
	return found;
}

export const prettier: Matcher = { name: "prettier", words: ["prettier"], match };
