import type * as v from "valibot";
import { clip } from "../text/clip.ts";

/**
 * Turn Valibot issues into sentences a person or an agent can act on:
 * "`timeout` must be a number, got string". Shared by CLI flags, MCP
 * arguments and discern.toml, so every surface words a problem the same way.
 */
export interface IssueWording {
	/** What to call a key/value map: "table" for TOML, "object" for JSON. */
	objectNoun: "table" | "object";
	/** Render a path for the message, e.g. `--dry-run` or `gate.timeout`. */
	name: (path: readonly (string | number)[]) => string;
}

export function pathOf(issue: v.BaseIssue<unknown>): (string | number)[] {
	return (issue.path ?? []).map((item) => item.key as string | number);
}

export function describeValue(value: unknown, objectNoun: IssueWording["objectNoun"]): string {
	if (value === null) return "null";
	if (typeof value === "number" && !Number.isFinite(value)) return String(value);
	if (Array.isArray(value)) return "array";
	if (value instanceof Date) return "date";
	if (typeof value === "object") return objectNoun;
	return typeof value;
}

export function issueSentence(issue: v.BaseIssue<unknown>, wording: IssueWording): string {
	// Keys come from the input too (an unknown key is echoed by name): each is clipped.
	const path = pathOf(issue).map((key) => (typeof key === "string" ? clip(key) : key));
	const name = path.length > 0 ? wording.name(path) : "the input";
	const got = describeValue(issue.input, wording.objectNoun);
	switch (issue.type) {
		case "strict_object":
			// Valibot words three problems alike: an unknown key ("expected never"), a missing key
			// (expected `"key"`, nothing received), and a value that is not an object at all.
			if (issue.expected === "never") return `${name} is not a known key`;
			if (issue.input === undefined && issue.expected?.startsWith('"')) return `${name} is required`;
			return `${name} must be ${article(wording.objectNoun)}, got ${got}`;
		case "picklist":
		case "literal":
			return `${name} must be one of ${issue.expected?.replace(/^\((.*)\)$/, "$1").replaceAll(" | ", ", ") ?? "the listed values"}, got ${quote(issue.input)}`;
		case "union":
			return `${name} must be ${unionExpectation(issue.expected, wording.objectNoun)}, got ${got}`;
		case "min_length":
			return `${name} must not be empty`;
		case "min_value":
		case "max_value":
			return `${name} must be ${issue.expected}, got ${quote(issue.input)}`;
		case "finite":
			return `${name} must be a finite number, got ${quote(issue.input)}`;
		case "regex":
			// Our regexes carry their rule as the message ("must be an absolute path").
			return `${name} ${issue.message.startsWith("Invalid") ? "has the wrong format" : clip(issue.message)}, got ${quote(issue.input)}`;
		case "string":
		case "number":
		case "boolean":
		case "array":
			return `${name} must be ${article(issue.type)}, got ${got}`;
		case "object":
		case "strict_object_type":
		case "record":
			return `${name} must be ${article(wording.objectNoun)}, got ${got}`;
		default:
			// Valibot's own wording quotes the value it received.
			return `${name}: ${clip(issue.message)}`;
	}
}

/** Valibot words a union's expectation as "((string | Array) | Object)"; say it in plain nouns. */
function unionExpectation(expected: string | null, objectNoun: string): string {
	const kinds = (expected ?? "")
		.replace(/[()]/g, "")
		.split(" | ")
		.map((kind) => kind.trim())
		.filter(Boolean);
	const nouns = kinds.map((kind) => (kind === "Object" ? objectNoun : kind === "Array" ? "list" : kind.toLowerCase()));
	return nouns.length > 0 ? [...new Set(nouns)].map(article).join(" or ") : "a different value";
}

function article(noun: string): string {
	return /^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`;
}

function quote(value: unknown): string {
	return typeof value === "string" ? JSON.stringify(clip(value)) : clip(String(value));
}
