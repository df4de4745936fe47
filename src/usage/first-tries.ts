/**
 * Words a newcomer types first, from other tools' habits (`init`, `check`,
 * `lint`, `ci` …), mapped to the verb that does that job here, with the
 * reason. Edit distance cannot find these: `check` is nothing like `done`.
 * Every command named here must exist in the build (a test runs each).
 */
export interface FirstTry {
	/** The commands to suggest, most likely first: `discern setup`, `discern --version`. */
	commands: readonly [string, ...string[]];
	/** One sentence: what the suggested commands do, so the choice is informed. */
	reason: string;
}

const SETUP: FirstTry = {
	commands: ["discern setup"],
	reason: "It adopts discern in a repository: it detects the stack and proposes the jobs for discern.toml.",
};
const INNER_LOOP: FirstTry = {
	commands: ["discern prepare"],
	reason: "It runs the formatters, then lint and typecheck, as declared in discern.toml.",
};
const GATE: FirstTry = {
	commands: ["discern done"],
	reason: "It runs the whole gate (build, checks, tests) on the committed tree and earns a Proof when green.",
};

const FIRST_TRIES: Readonly<Record<string, FirstTry>> = {
	init: SETUP,
	install: {
		commands: ["discern setup"],
		reason: "discern is installed already; `discern setup` adopts it in a repository: it detects the stack and proposes discern.toml.",
	},
	check: {
		commands: ["discern prepare", "discern done"],
		reason: "`prepare` runs the fast checks (formatters, lint, typecheck); `done` runs the whole gate on the committed tree and earns a Proof.",
	},
	lint: INNER_LOOP,
	typecheck: INNER_LOOP,
	format: INNER_LOOP,
	fmt: INNER_LOOP,
	fix: INNER_LOOP,
	run: {
		commands: ["discern done", "discern prepare", "discern test"],
		reason: "discern runs the jobs declared in discern.toml: `done` the whole gate, `prepare` formatters, lint and typecheck, `test` the tests.",
	},
	build: GATE,
	gate: GATE,
	ci: {
		commands: ["discern done --json"],
		reason: "In CI, `discern done` runs the whole gate on the committed tree; its exit status is the verdict and `--json` the whole report.",
	},
	verify: {
		commands: ["discern done", "discern doctor"],
		reason: "`done` verifies the committed work with the whole gate; `doctor` checks the install, the repository and the config.",
	},
	validate: {
		commands: ["discern config validate"],
		reason: "It checks discern.toml and lists every problem with its line.",
	},
	version: {
		commands: ["discern --version"],
		reason: "The version is a flag, as with most tools.",
	},
	serve: {
		commands: ["discern mcp"],
		reason: "It runs the MCP server over stdio, for editors and agents.",
	},
};

export function firstTry(word: string): FirstTry | undefined {
	return Object.hasOwn(FIRST_TRIES, word.toLowerCase()) ? FIRST_TRIES[word.toLowerCase()] : undefined;
}

/** The words this module knows, for tests. */
export function firstTryWords(): string[] {
	return Object.keys(FIRST_TRIES);
}
