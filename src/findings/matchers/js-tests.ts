/**
 * The JavaScript test runners' failure reports: one finding per failing
 * test, named by its describe path, at the first stack frame in the test's
 * own file (Jest, Vitest), else the first in a file of the project (not
 * node_modules, not the runner's own), else at the test file the runner named. The message is the test's name and the error's first line.
 */
import { type Finding, finding, type Matcher, nextNonBlank, position } from "./types.ts";

/**
 * A stack frame: `at fn (file:3:5)`, `at file:3:5`, or vitest's `❯ file:3:5`
 * and `❯ fn file:3:5` (a frame inside a named function: a helper, a method,
 * a named test callback).
 */
const FRAME = /^\s*(?:at (?:.*? \()?|❯ (?:\S.*? )?|> )(?:file:\/\/)?([^\s()]+?):(\d+):(\d+)\)?\s*$/;

interface Frame {
	file: string;
	line?: number | undefined;
	col?: number | undefined;
}

function frameOf(line: string): Frame | undefined {
	const m = FRAME.exec(line);
	if (!m?.[1] || /(^|\/)node_modules\/|^node:|^internal\/|^bun:|^native$/.test(m[1])) return undefined;
	return { file: m[1], line: position(m[2]), col: position(m[3]) };
}

function testFinding(name: string, error: string | undefined, frame: Frame | undefined, testFile: string | undefined): Finding {
	return finding({
		file: frame?.file ?? testFile,
		line: frame?.line,
		col: frame?.col,
		message: `\`${name}\`${error ? `: ${error.trim()}` : " failed"}`,
		severity: "error",
	});
}

// ---- Vitest: ` FAIL  test/a.test.ts > suite > name`, the error, ` ❯ test/a.test.ts:5:19` ----

const VITEST_FAIL = /^\s*FAIL\s+(\S+?)(?: \[ .* \])? > (.+?)\s*$/;
const VITEST_SUITE_FAIL = /^\s*FAIL\s+(\S+?\.\w+) \[ .* \]\s*$/;
const VITEST_SEPARATOR = /^\s*⎯{3,}/;

function vitestMatch(lines: readonly string[]): Finding[] {
	const found: Finding[] = [];
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i] ?? "";
		const test = VITEST_FAIL.exec(line);
		const suite = test ? null : VITEST_SUITE_FAIL.exec(line);
		if (!test && !suite) continue;
		const testFile = (test ?? suite)?.[1];
		const error = nextNonBlank(lines, afterHeaders(lines, i + 1), 3);
		const frames: Frame[] = [];
		for (let j = (error?.at ?? i) + 1; j < lines.length && j < i + 200; j++) {
			const text = lines[j] ?? "";
			if (VITEST_SEPARATOR.test(text) || VITEST_FAIL.test(text) || VITEST_SUITE_FAIL.test(text)) break;
			const frame = frameOf(text);
			if (frame) frames.push(frame);
		}
		found.push(testFinding(test?.[2] ?? `${testFile}`, error?.text, inTestFile(frames, testFile) ?? frames[0], testFile));
	}
	return found;
}

/**
 * The first frame in the failing test's own file: an assertion in a helper
 * of another file (`❯ expectTotal test/helpers.js:5:24`) is reported where
 * the test called it, as Jest's is; a helper in the test file is its own line.
 */
function inTestFile(frames: readonly Frame[], testFile: string | undefined): Frame | undefined {
	if (!testFile) return undefined;
	return frames.find((frame) => frame.file === testFile || frame.file.endsWith(`/${testFile}`));
}

/**
 * Where the error of the FAIL header above `from` starts. Tests that failed
 * with one error (a failing beforeEach) share it: Vitest prints their
 * headers one after another, then the error once, so the error is read past
 * the headers that follow, never one of them.
 */
function afterHeaders(lines: readonly string[], from: number): number {
	let at = from;
	while (at < lines.length && (VITEST_FAIL.test(lines[at] ?? "") || VITEST_SUITE_FAIL.test(lines[at] ?? ""))) at++;
	return at;
}

export const vitest: Matcher = { name: "vitest", words: ["vitest"], match: vitestMatch };

// ---- Jest: `FAIL test/a.test.js`, then `  ● suite › name`, the error, `at … (test/a.test.js:3:19)` ----

const JEST_FILE = /^\s*FAIL\s+(\S+)(?:\s+\(\d.*\))?\s*$/;
const JEST_TEST = /^\s+● (.+)$/;

function jestMatch(lines: readonly string[]): Finding[] {
	const found: Finding[] = [];
	const seen = new Set<string>();
	let testFile: string | undefined;
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i] ?? "";
		const file = JEST_FILE.exec(line);
		if (file) {
			testFile = file[1];
			continue;
		}
		const test = JEST_TEST.exec(line);
		if (!test?.[1] || /^Console$/.test(test[1])) continue;
		const name = test[1].trim();
		const error = nextNonBlank(lines, i + 1, 4);
		let frame: Frame | undefined;
		let fallbackFrame: Frame | undefined;
		for (let j = (error?.at ?? i) + 1; j < lines.length && j < i + 300; j++) {
			const text = lines[j] ?? "";
			if (JEST_TEST.test(text) || JEST_FILE.test(text)) break;
			const candidate = frameOf(text);
			if (!candidate) continue;
			fallbackFrame ??= candidate;
			if (testFile && candidate.file.endsWith(testFile)) {
				frame = candidate;
				break;
			}
		}
		const key = `${testFile}\u0000${name}`;
		if (seen.has(key)) continue; // The closing summary repeats each failure.
		seen.add(key);
		found.push(testFinding(name, error?.text, frame ?? fallbackFrame, testFile));
	}
	return found;
}

export const jest: Matcher = { name: "jest", words: ["jest"], match: jestMatch };

// ---- bun test: a file header `test/a.test.ts:`, errors and frames, then `(fail) suite > name` ----

const BUN_FILE = /^(\S.*\.(?:[cm]?[jt]sx?)):$/;
const BUN_RESULT = /^\s*(?:\((pass|fail|skip|todo)\)|([✓✗»✔✘]))\s+(.+?)(?:\s+\[[\d.]+m?s\])?\s*$/;
const BUN_ERROR = /^(?:error|\w*Error)(?:: (.*))?$/;

function bunMatch(lines: readonly string[]): Finding[] {
	const found: Finding[] = [];
	let testFile: string | undefined;
	let error: string | undefined;
	let frame: Frame | undefined;
	for (const line of lines) {
		const file = BUN_FILE.exec(line);
		if (file) {
			testFile = file[1];
			error = undefined;
			frame = undefined;
			continue;
		}
		const result = BUN_RESULT.exec(line);
		if (result) {
			if (result[1] === "fail" || result[2] === "✗" || result[2] === "✘") found.push(testFinding(result[3] ?? "", error, frame, testFile));
			error = undefined;
			frame = undefined;
			continue;
		}
		const thrown = BUN_ERROR.exec(line);
		if (thrown && error === undefined) {
			error = line.startsWith("error: ") ? (thrown[1] ?? "") : line;
			continue;
		}
		frame ??= frameOf(line);
	}
	return found;
}

export const bunTest: Matcher = { name: "bun test", words: ["bun test"], match: bunMatch };
