/**
 * The `file:line:col: severity: message` shape of gcc and clang (and of many
 * tools that copied it: swiftc, nvcc, ld's `file:line:`), with the warning
 * flag gcc and clang put last as the rule (`[-Wunused-variable]`). Notes
 * belong to the finding above them and are not findings of their own.
 */
import { type Finding, finding, type Matcher, position, severityOf } from "./types.ts";

const LOCATED = /^(\S[^:]*?):(\d+)(?::(\d+))?: (fatal error|error|warning): (.*?)(?: \[(-W[^\]]+|-Werror[^\]]*|[\w.-]+)\])?$/;

function match(lines: readonly string[]): Finding[] {
	const found: Finding[] = [];
	for (const line of lines) {
		const m = LOCATED.exec(line);
		if (!m) continue;
		found.push(
			finding({
				file: m[1],
				line: position(m[2]),
				col: position(m[3]),
				rule: m[6]?.replace(/^-Werror=/, "-W"),
				message: m[5] ?? "",
				severity: severityOf(m[4] ?? ""),
			}),
		);
	}
	return found;
}

export const gcc: Matcher = { name: "gcc", words: ["gcc", "g++", "cc", "c++", "clang", "clang++", "swiftc", "nvcc", "zig"], match };
