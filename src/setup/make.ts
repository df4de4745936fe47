import type { DetectedStack } from "./detect.ts";
import type { Folder } from "./folder.ts";
import type { JobName, StackJob } from "./shared.ts";

/**
 * A root Makefile: its conventional targets become jobs (`make test`). It
 * usually wraps the same tools a stack proposes, so detect.ts lets it fill
 * only the names no stack took.
 */

/** GNU make's own search order. */
const MAKEFILES = ["GNUmakefile", "makefile", "Makefile"] as const;

/** GNU's conventional targets: `check` runs the tests when there is no `test`. */
const MAKE_TARGETS: ReadonlyArray<readonly [JobName, readonly string[]]> = [
	["format", ["format", "fmt"]],
	["build", ["build"]],
	["lint", ["lint"]],
	["typecheck", ["typecheck", "type-check"]],
	["test", ["test", "check"]],
];

export function detectMake(folder: Folder): { stack: DetectedStack; jobs: StackJob[] } | null {
	const evidence = MAKEFILES.find((name) => folder.has(name));
	if (!evidence) return null;
	const targets = makeTargets(folder.text(evidence) ?? "");
	const jobs: StackJob[] = [];
	for (const [name, candidates] of MAKE_TARGETS) {
		const target = candidates.find((candidate) => targets.has(candidate));
		if (!target) continue;
		const why = target === "check" ? `${evidence} has a "check" target (GNU's name for running the tests)` : `${evidence} has a "${target}" target`;
		jobs.push({ name, run: `make ${target}`, reason: why });
	}
	return { stack: { kind: "make", evidence }, jobs };
}

/**
 * Explicit targets from rule lines (`test:`, `test lint: deps`, `test::`).
 * Recipe lines (tab-indented) and comments are skipped; `:=`, `::=` and
 * `:::=` are assignments, not rules.
 */
export function makeTargets(text: string): Set<string> {
	const targets = new Set<string>();
	for (const line of text.split(/\r?\n/)) {
		if (line.startsWith("\t")) continue;
		const match = /^ *([^\s:#=][^:#=]*?)\s*::?(?![:=])/.exec(line);
		for (const target of match?.[1]?.split(/\s+/) ?? []) targets.add(target);
	}
	return targets;
}
