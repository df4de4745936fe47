/**
 * Go. `go build` and `go vet`: `./a.go:3:5: message` under a `# package`
 * line (vet's analyzers print the same shape). `go test`: `--- FAIL: TestX
 * (0.00s)` and the test's `a_test.go:12: message` lines, which name the file
 * relative to the package's folder, so the package (from the `FAIL
 * example.com/m/pkg` line after it) is said in the message. golangci-lint:
 * `a.go:3:5: message (linter)`.
 */
import { type Finding, finding, type Matcher, position } from "./types.ts";

const COMPILER = /^(\S[^:\s]*\.go):(\d+)(?::(\d+))?: (.*)$/;
const TEST_FAIL = /^\s*--- FAIL: (\S+)(?: \([\d.]+s\))?$/;
const TEST_LOG = /^\s+(\S+\.go):(\d+): (.*)$/;
const PACKAGE_FAIL = /^(?:FAIL|---)\s+(\S+)\s+(?:[\d.]+s|\[[\w ]+\])$/;
const LINTER = /^(\S[^:\s]*\.go):(\d+)(?::(\d+))?: (.*) \(([\w-]+)\)$/;

function goMatch(lines: readonly string[]): Finding[] {
	const found: Finding[] = [];
	let pendingTests: Finding[] = [];
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i] ?? "";
		const failed = TEST_FAIL.exec(line);
		if (failed) {
			const name = failed[1] ?? "";
			let logged = false;
			while (TEST_LOG.test(lines[i + 1] ?? "") || /^\s{8,}\S/.test(lines[i + 1] ?? "")) {
				i++;
				const log = TEST_LOG.exec(lines[i] ?? "");
				if (!log) continue;
				logged = true;
				pendingTests.push(finding({ file: log[1], line: position(log[2]), message: `\`${name}\`: ${log[3] ?? ""}`, severity: "error" }));
			}
			if (!logged) pendingTests.push(finding({ message: `\`${name}\` failed`, severity: "error" }));
			continue;
		}
		const pkg = PACKAGE_FAIL.exec(line);
		if (pkg) {
			for (const test of pendingTests) found.push({ ...test, message: test.message.replace(/^(`[^`]*`)/, `$1 (${pkg[1]})`) });
			pendingTests = [];
			continue;
		}
		const m = COMPILER.exec(line);
		if (m) found.push(finding({ file: m[1], line: position(m[2]), col: position(m[3]), message: m[4] ?? "", severity: "error" }));
	}
	found.push(...pendingTests);
	return found;
}

export const go: Matcher = { name: "go", words: ["go", "gotestsum", "go vet"], match: goMatch };

function lintMatch(lines: readonly string[]): Finding[] {
	const found: Finding[] = [];
	for (const line of lines) {
		const m = LINTER.exec(line);
		if (m) found.push(finding({ file: m[1], line: position(m[2]), col: position(m[3]), rule: m[5], message: m[4] ?? "", severity: "error" }));
	}
	return found;
}

export const golangciLint: Matcher = { name: "golangci-lint", words: ["golangci-lint"], match: lintMatch };
