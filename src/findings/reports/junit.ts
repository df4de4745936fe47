/**
 * JUnit XML (the Ant/Surefire dialect every test runner writes): one
 * diagnostic per test case that failed or errored. Passing and skipped cases,
 * and Surefire's flaky reruns that passed in the end, are not diagnostics.
 */
import type { Diagnostic } from "../../contract/envelope.ts";
import { positiveInteger, type ReportJob, reportPath, summaryLine } from "./job.ts";
import { childElements, localName, readXml, textOf, type XmlElement } from "./xml.ts";

/** How much of a failure's body (usually a stack trace) a diagnostic carries. */
export const JUNIT_OUTPUT_LIMIT = 2_000;

/** Null when the text does not start with a `<testsuites>` or `<testsuite>` document. */
export function parseJUnit(text: string, job: ReportJob): Diagnostic[] | null {
	return junitAt(text, 0, job)?.diagnostics ?? null;
}

/**
 * The JUnit document whose root starts at `from` (after any XML prolog), and
 * where it ends, so a caller scanning noisy output can continue after it.
 * A document cut off mid-way yields the test cases that were complete.
 */
export function junitAt(text: string, from: number, job: ReportJob): { diagnostics: Diagnostic[]; end: number } | null {
	const read = readXml(text, from);
	if (!read || !isSuite(read.root)) return null;
	return { diagnostics: failedCases(read.root).map((found) => caseDiagnostic(found, job)), end: read.end };
}

function isSuite(element: XmlElement): boolean {
	const name = localName(element);
	return name === "testsuites" || name === "testsuite";
}

interface FailedCase {
	testcase: XmlElement;
	problem: XmlElement;
	suite: XmlElement;
}

/** Walks suites in document order, iteratively: nesting depth is the input's to choose. */
function failedCases(root: XmlElement): FailedCase[] {
	const found: FailedCase[] = [];
	const pending: { element: XmlElement; suite: XmlElement }[] = [{ element: root, suite: root }];
	for (let next = pending.pop(); next; next = pending.pop()) {
		const { element, suite } = next;
		if (isSuite(element)) {
			const children = childElements(element);
			for (const child of children.reverse()) pending.push({ element: child, suite: element });
		} else if (localName(element) === "testcase") {
			const problem = problemOf(element);
			if (problem) found.push({ testcase: element, problem, suite });
		}
	}
	return found;
}

/** The case's first `<failure>` or `<error>`; a case cut off by truncation is not trusted. */
function problemOf(testcase: XmlElement): XmlElement | undefined {
	if (!testcase.closed) return undefined;
	return childElements(testcase).find((child) => {
		const name = localName(child);
		return name === "failure" || name === "error";
	});
}

function caseDiagnostic({ testcase, problem, suite }: FailedCase, job: ReportJob): Diagnostic {
	const classname = testcase.attrs.classname ?? testcase.attrs.class ?? "";
	const name = testcase.attrs.name ?? "";
	const body = textOf(problem).trim();
	const summary = summaryLine(problem.attrs.message) ?? summaryLine(body) ?? problem.attrs.type ?? `${localName(problem)} without a message`;
	const file = caseFile(testcase, classname, job);
	const line = caseLine(testcase, suite);
	const rule = problem.attrs.type?.trim();
	const output = body.length > JUNIT_OUTPUT_LIMIT ? body.slice(0, JUNIT_OUTPUT_LIMIT) : body;
	return {
		tool: job.name,
		severity: "error",
		message: `\`${caseTitle(classname, name)}\`: ${summary}`,
		reproduce_cmd: job.command,
		...(output !== "" ? { output } : {}),
		...(body.length > JUNIT_OUTPUT_LIMIT ? { truncated: true } : {}),
		...(file !== undefined ? { file } : {}),
		...(line !== undefined ? { line } : {}),
		...(rule ? { rule } : {}),
	};
}

/**
 * `classname.name`, except when the name already starts with the class name:
 * jest-junit's default templates write the full title into both attributes.
 */
function caseTitle(classname: string, name: string): string {
	if (classname === "") return name;
	if (name === "" || name.startsWith(classname)) return name || classname;
	return `${classname}.${name}`;
}

/** Vitest and some others put the test file in `classname`; Java and pytest put a dotted name there. */
const SOURCE_FILE = /\.(?:[cm]?[jt]sx?|py|rb|go|rs|php|ex|exs|kt|java|cs|swift|dart|lua)$/;

function caseFile(testcase: XmlElement, classname: string, job: ReportJob): string | undefined {
	const declared = testcase.attrs.file;
	if (declared !== undefined) return reportPath(declared, job);
	const pathLike = /[\\/]/.test(classname) || SOURCE_FILE.test(classname);
	return pathLike ? reportPath(classname, job) : undefined;
}

/**
 * pytest writes the 0-based line of the test function (its item `location`,
 * under junit_family=xunit1); its suite is named "pytest" unless reconfigured.
 * Other writers count from 1.
 */
function caseLine(testcase: XmlElement, suite: XmlElement): number | undefined {
	const raw = testcase.attrs.line;
	if (raw === undefined) return undefined;
	if (suite.attrs.name === "pytest") {
		const zeroBased = positiveInteger(raw) ?? (raw.trim() === "0" ? 0 : undefined);
		return zeroBased === undefined ? undefined : zeroBased + 1;
	}
	return positiveInteger(raw);
}
