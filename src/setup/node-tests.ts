import { shellCommand } from "../text/shell-quote.ts";
import { parseCommands } from "../text/shell-words.ts";
import { type Folder, type FolderReader, inFolder } from "./folder.ts";
import { BUN_TYPES, JEST, MOCHA, type Tool, VITEST } from "./node-tools.ts";
import { NEVER_ENTERED, type NodeManager } from "./shared.ts";

/**
 * The test job of a JavaScript project without a "test" script: the runner
 * it depends on or configures (Vitest, Jest, Mocha), else Bun's runner in a
 * Bun project, else node's own runner, each only when it would find tests.
 */

export interface TestRunnerContext {
	folder: Folder;
	reader: FolderReader;
	manager: NodeManager;
	/** The file that names the manager (`bun.lock`), for a reason. */
	managerEvidence: string;
	deps: ReadonlySet<string>;
	/** The command through the project's manager, with why the tool is in use; null when it is not. */
	via(tool: Tool, run: string): { run: string; reason: string } | null;
	/** Why the tool is in use, or null. */
	uses(tool: Tool): string | null;
}

/**
 * Runners setup has no command for. A project that depends on one has its
 * own way to run its tests: node's runner is not guessed for it (it would
 * run that runner's files, and fail on its globals).
 */
const OTHER_RUNNERS = ["ava", "tap", "tape", "uvu", "jasmine", "karma", "qunit", "@playwright/test", "cypress", "@web/test-runner"];

export async function nodeTestRunner(context: TestRunnerContext): Promise<{ run: string; reason: string } | null> {
	const declared = context.via(VITEST, "vitest run") ?? context.via(JEST, "jest") ?? context.via(MOCHA, "mocha");
	if (declared) return declared;
	const bun = context.manager === "bun" ? context.uses(BUN_TYPES) : null;
	if (bun) return { run: "bun test", reason: bun };
	// From here on the runner is guessed from the files alone: a runner setup has no command for owns them (Playwright's specs are neither bun's nor node's).
	if (OTHER_RUNNERS.some((name) => context.deps.has(name))) return null;
	if (context.manager === "bun") {
		const found = await findTestFile(context.folder, context.reader, isBunTest);
		if (found) return { run: "bun test", reason: `${found} is a test file bun test finds, and ${context.managerEvidence} makes this a Bun project` };
	}
	const file = await findTestFile(context.folder, context.reader, isNodeTest);
	return file ? { run: "node --test", reason: `${file} is a file node --test finds, and no test runner dependency: node's own runner` } : null;
}

/**
 * What `node --test` runs when given no files (Node 20 and later): every
 * `.js`, `.cjs` or `.mjs` file in a `test` folder at any depth, and any
 * named `test`, `test-*`, `*.test`, `*-test` or `*_test`.
 */
export function isNodeTest(folders: readonly string[], name: string): boolean {
	if (!/\.[cm]?js$/.test(name)) return false;
	return folders.includes("test") || /^(test|test-.+|.+[.\-_]test)\.[cm]?js$/.test(name);
}

/** What `bun test` runs: `*.test.*`, `*_test.*`, `*.spec.*` and `*_spec.*` JavaScript or TypeScript files, anywhere. */
export function isBunTest(_folders: readonly string[], name: string): boolean {
	return /[._](test|spec)\.[cm]?[jt]sx?$/.test(name);
}

/** Folders looked in for a test file, at most this deep below the project and this many. */
const MAX_DEPTH = 4;
const MAX_FOLDERS = 200;

/**
 * The first file `matches` accepts, shallowest first, relative to the
 * repository root; null when none. Both runners skip node_modules; the
 * other folders a wildcard never enters (build output, fixtures, vendored
 * code) and hidden ones hold no tests of the project's own.
 */
export async function findTestFile(
	folder: Folder,
	reader: FolderReader,
	matches: (folders: readonly string[], name: string) => boolean,
): Promise<string | null> {
	let level: Array<{ folder: Folder; folders: string[] }> = [{ folder, folders: [] }];
	let read = 0;
	for (let depth = 0; depth <= MAX_DEPTH && level.length > 0; depth++) {
		for (const { folder: current, folders } of level) {
			const name = current.files.find((file) => matches(folders, file));
			if (name) return inFolder(current.rel, name);
		}
		const next: typeof level = [];
		for (const { folder: current, folders } of level) {
			for (const name of current.dirs) {
				if (name.startsWith(".") || NEVER_ENTERED.has(name) || read >= MAX_FOLDERS) continue;
				read++;
				const child = await reader.read(inFolder(current.rel, name));
				if (child) next.push({ folder: child, folders: [...folders, name] });
			}
		}
		level = next;
	}
	return null;
}

/** Runners whose command can stand alone as the test job when a "test" script chains other checks before it. */
const CHAINED_RUNNERS = new Set(["vitest", "jest", "mocha"]);

/**
 * The runner of a "test" script that chains other checks (`pnpm lint &&
 * pnpm test:types && vitest run --coverage`), with the commands chained
 * around it; null when the script is one command, or when it is not plainly
 * a chain (a separator other than `&&`, a substitution, a subshell, a `cd`
 * or another command that changes the shell, no runner or several). The test job
 * runs the runner alone: the lint and type checks are jobs of their own, and
 * running them again inside the test job is slower and blames the wrong job.
 */
/** Commands that change the shell every later command of a chain runs in. */
const SHELL_STATE = new Set(["cd", "pushd", "popd", "export", "unset", "set", "source", ".", "alias", "umask", "ulimit", "eval", "exec"]);

export function chainedRunner(script: string): { runner: string; others: string[] } | null {
	// Only a plain `a && b && runner` chain: `;`, `||`, `|` or a background `&` change what the runner sees (`serve & vitest run`
	// needs its server), and so does a command that changes the shell the runner starts from (`cd pkg && vitest run`).
	const unquoted = script.replace(/'[^']*'|"(?:\\.|[^"\\])*"/g, '""');
	if (/[;|&\n]/.test(unquoted.replace(/&&/g, ""))) return null;
	const commands = parseCommands(script);
	if (commands.length < 2) return null;
	if (commands.some((command) => SHELL_STATE.has(command.words[0] ?? "") || /^[A-Za-z_][A-Za-z0-9_]*=/.test(command.words[0] ?? ""))) return null;
	if (commands.some((command) => command.substitutions.length > 0 || command.opened > 0 || command.closed > 0)) return null;
	const runners = commands.filter((command) => CHAINED_RUNNERS.has(command.words[0] ?? ""));
	const [runner] = runners;
	if (runners.length !== 1 || runner === undefined) return null;
	return {
		runner: shellCommand(...runner.words),
		others: commands.filter((command) => command !== runner).map((command) => shellCommand(...command.words)),
	};
}
