/**
 * SARIF 2.1.0: one diagnostic per result that reports a problem, plus the
 * error-level tool notifications (ESLint's SARIF formatter puts parse errors
 * there, not among the results, so they would otherwise vanish).
 *
 * Severity: `error` stays an error; `warning`, `note` and `none` become
 * warnings. A result without `level` takes its rule's
 * `defaultConfiguration.level`; without that either, it is a warning
 * (MISSING_LEVEL_SEVERITY), as SARIF 2.1.0 itself defines. The job's own
 * exit code already decides whether the gate failed. Configuration
 * overrides in `invocations` are not consulted.
 */
import type { Diagnostic } from "../../contract/envelope.ts";
import { isRecord } from "../../contract/record.ts";
import { positiveInteger, type ReportJob, reportPath } from "./job.ts";

type Severity = Diagnostic["severity"];
type Json = Record<string, unknown>;

export const MISSING_LEVEL_SEVERITY: Severity = "warning";

/** Results of these kinds say a rule held or did not apply: not findings. */
const NOT_FINDINGS = new Set(["pass", "notApplicable", "informational"]);

/** Null when the text is not a SARIF 2.1.0 log (`version: "2.1.0"` and a `runs` array). */
export function parseSarif(text: string, job: ReportJob): Diagnostic[] | null {
	const log = parseJson(text);
	if (!isRecord(log) || log.version !== "2.1.0" || !Array.isArray(log.runs)) return null;
	return log.runs.flatMap((run) => (isRecord(run) ? runDiagnostics(run, job) : []));
}

function parseJson(text: string): unknown {
	try {
		return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
	} catch {
		return undefined;
	}
}

function runDiagnostics(run: Json, job: ReportJob): Diagnostic[] {
	const rules = new RuleIndex(run);
	const diagnostics: Diagnostic[] = [];
	for (const result of records(run.results)) {
		if (isFinding(result)) diagnostics.push(resultDiagnostic(result, run, rules, job));
	}
	for (const notification of errorNotifications(run)) diagnostics.push(notificationDiagnostic(notification, run, job));
	return diagnostics;
}

function isFinding(result: Json): boolean {
	const kind = string(result.kind);
	if (kind !== undefined && NOT_FINDINGS.has(kind)) return false;
	if (result.baselineState === "absent") return false; // Fixed since the baseline: gone from this run.
	return !isSuppressed(result);
}

/**
 * Suppressed when at least one suppression exists and none is still under
 * review or rejected. A suppression without `status` counts as accepted:
 * that is how ESLint writes its in-source `eslint-disable` suppressions.
 */
function isSuppressed(result: Json): boolean {
	const suppressions = records(result.suppressions);
	if (suppressions.length === 0) return false;
	return suppressions.every((suppression) => suppression.status === undefined || suppression.status === "accepted");
}

function resultDiagnostic(result: Json, run: Json, rules: RuleIndex, job: ReportJob): Diagnostic {
	const rule = rules.find(result);
	const ruleId = string(result.ruleId) ?? string(record(result.rule)?.id) ?? string(rule?.id);
	const message = messageText(record(result.message), rule, run) ?? descriptionOf(rule) ?? ruleId ?? "SARIF result without a message";
	return {
		tool: job.name,
		severity: severityOf(result, rule),
		message,
		reproduce_cmd: job.command,
		...locationOf(records(result.locations)[0], run, job),
		...(ruleId !== undefined ? { rule: ruleId } : {}),
	};
}

function severityOf(result: Json, rule: Json | undefined): Severity {
	const kind = string(result.kind) ?? "fail";
	if (kind !== "fail") return levelSeverity(string(result.level) ?? "none");
	const level = string(result.level) ?? string(record(rule?.defaultConfiguration)?.level);
	return levelSeverity(level);
}

function levelSeverity(level: string | undefined): Severity {
	switch (level) {
		case "error":
			return "error";
		case "warning":
		case "note":
		case "none":
			return "warning";
		default:
			return MISSING_LEVEL_SEVERITY;
	}
}

/** Looks rules up by index or id in the driver or the extension a result names. */
class RuleIndex {
	readonly #run: Json;
	readonly #byId = new Map<Json, Map<string, Json>>();

	constructor(run: Json) {
		this.#run = run;
	}

	find(result: Json): Json | undefined {
		const reference = record(result.rule);
		const component = this.#component(record(reference?.toolComponent));
		if (!component) return undefined;
		const rules = Array.isArray(component.rules) ? component.rules : [];
		const index = integer(reference?.index) ?? integer(result.ruleIndex);
		const byIndex = index !== undefined ? record(rules[index]) : undefined;
		if (byIndex) return byIndex;
		const id = string(reference?.id) ?? string(result.ruleId);
		if (id === undefined) return undefined;
		const byId = this.#ids(component, rules);
		// A hierarchical ruleId ("CA5350/md5") names its rule by its first component.
		return byId.get(id) ?? byId.get(id.split("/")[0] ?? id);
	}

	#component(reference: Json | undefined): Json | undefined {
		const tool = record(this.#run.tool);
		const extension = integer(reference?.index);
		if (extension === undefined) return record(tool?.driver);
		return Array.isArray(tool?.extensions) ? record(tool.extensions[extension]) : undefined;
	}

	#ids(component: Json, rules: unknown[]): Map<string, Json> {
		let ids = this.#byId.get(component);
		if (!ids) {
			ids = new Map();
			for (const rule of rules) {
				const id = string(record(rule)?.id);
				if (id !== undefined && isRecord(rule) && !ids.has(id)) ids.set(id, rule);
			}
			this.#byId.set(component, ids);
		}
		return ids;
	}
}

/**
 * The message as SARIF defines it: literal text, else markdown, else a string
 * looked up by `id` in the rule's (or the tool's global) message strings, with
 * `{0}`-style placeholders filled from `arguments`.
 */
function messageText(message: Json | undefined, rule: Json | undefined, run: Json): string | undefined {
	if (!message) return undefined;
	const id = string(message.id);
	const template =
		nonBlank(message.text) ??
		nonBlank(message.markdown) ??
		(id !== undefined ? (lookupMessage(rule?.messageStrings, id) ?? lookupMessage(record(record(run.tool)?.driver)?.globalMessageStrings, id)) : undefined);
	if (template === undefined) return undefined;
	const args = Array.isArray(message.arguments) ? message.arguments : [];
	return template.replace(/\{(\d+)\}/g, (whole, n: string) => string(args[Number(n)]) ?? whole).trim();
}

function lookupMessage(strings: unknown, id: string): string | undefined {
	const entry = isRecord(strings) && Object.hasOwn(strings, id) ? record(strings[id]) : undefined;
	return nonBlank(entry?.text) ?? nonBlank(entry?.markdown);
}

function descriptionOf(rule: Json | undefined): string | undefined {
	return nonBlank(record(rule?.shortDescription)?.text) ?? nonBlank(record(rule?.fullDescription)?.text);
}

type Place = Pick<Diagnostic, "file" | "line" | "col">;

function locationOf(location: Json | undefined, run: Json, job: ReportJob): Place {
	const physical = record(location?.physicalLocation);
	if (!physical) return {};
	const file = artifactPath(record(physical.artifactLocation), run, job);
	const region = record(physical.region);
	const line = positiveInteger(region?.startLine);
	const col = line !== undefined ? positiveInteger(region?.startColumn) : undefined;
	return {
		...(file !== undefined ? { file } : {}),
		...(line !== undefined ? { line } : {}),
		...(col !== undefined ? { col } : {}),
	};
}

/** The artifact's path, following `index` into `run.artifacts` when the uri is not inline. */
function artifactPath(artifact: Json | undefined, run: Json, job: ReportJob): string | undefined {
	if (!artifact) return undefined;
	let uri = string(artifact.uri);
	let baseId = string(artifact.uriBaseId);
	const index = integer(artifact.index);
	if (uri === undefined && index !== undefined && Array.isArray(run.artifacts)) {
		const listed = record(record(run.artifacts[index])?.location);
		uri = string(listed?.uri);
		baseId = string(listed?.uriBaseId);
	}
	if (uri === undefined) return undefined;
	return reportPath(uriToPath(withBase(uri, baseId, run)), job);
}

/**
 * Prefixes a relative uri with its base when the log defines that base
 * directly (`originalUriBaseIds`). A base that is itself relative to another
 * base, or undefined (CodeQL's "%SRCROOT%"), leaves the uri as it is: it is
 * then relative to the checkout, which is what a diagnostic wants anyway.
 */
function withBase(uri: string, baseId: string | undefined, run: Json): string {
	if (baseId === undefined || /^[a-z][a-z0-9+.-]*:/i.test(uri)) return uri;
	const bases = record(run.originalUriBaseIds);
	const base = bases && Object.hasOwn(bases, baseId) ? record(bases[baseId]) : undefined;
	const baseUri = string(base?.uri);
	if (baseUri === undefined || base?.uriBaseId !== undefined) return uri;
	return baseUri.endsWith("/") ? `${baseUri}${uri}` : `${baseUri}/${uri}`;
}

/** `file:///home/a%20b/x.ts` → `/home/a b/x.ts`; `file:///C:/x` → `C:/x`; other schemes stay. */
function uriToPath(uri: string): string {
	const isFile = /^file:/i.test(uri);
	if (!isFile && /^[a-z][a-z0-9+.-]*:\/\//i.test(uri)) return uri;
	let path = isFile ? uri.replace(/^file:(?:\/\/(?:localhost)?)?/i, "") : uri;
	if (/^\/[A-Za-z]:\//.test(path)) path = path.slice(1);
	try {
		return decodeURIComponent(path);
	} catch {
		return path; // A literal `%` the writer did not encode.
	}
}

/**
 * `invocations[].toolExecutionNotifications` and `toolConfigurationNotifications`
 * at level "error" (their default level is "warning", which stays out).
 */
function errorNotifications(run: Json): Json[] {
	const notifications: Json[] = [];
	for (const invocation of records(run.invocations)) {
		for (const key of ["toolExecutionNotifications", "toolConfigurationNotifications"]) {
			for (const notification of records(invocation[key])) {
				if (notification.level === "error") notifications.push(notification);
			}
		}
	}
	return notifications;
}

function notificationDiagnostic(notification: Json, run: Json, job: ReportJob): Diagnostic {
	const rule = string(record(notification.descriptor)?.id);
	const message = messageText(record(notification.message), undefined, run) ?? rule ?? "tool error without a message";
	return {
		tool: job.name,
		severity: "error",
		message,
		reproduce_cmd: job.command,
		...locationOf(records(notification.locations)[0], run, job),
		...(rule !== undefined ? { rule } : {}),
	};
}

function record(value: unknown): Json | undefined {
	return isRecord(value) ? value : undefined;
}

function records(value: unknown): Json[] {
	return Array.isArray(value) ? value.filter(isRecord) : [];
}

function string(value: unknown): string | undefined {
	return typeof value === "string" ? value : undefined;
}

function nonBlank(value: unknown): string | undefined {
	return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

function integer(value: unknown): number | undefined {
	return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : undefined;
}
