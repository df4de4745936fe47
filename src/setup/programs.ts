import { stat } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import { isInside } from "../platform/files.ts";
import { findExecutable } from "../platform/process.ts";
import { parseCommands } from "../text/shell-words.ts";
import { MAX_MANIFEST_BYTES } from "./folder.ts";
import { readManifest } from "./node.ts";
import { installsNodeModules, isYarnBerry } from "./outputs.ts";

/**
 * Does each command's program exist here? `setup verify` asks it of every
 * job and scope gate so that CI learns of a missing tool before a gate runs.
 * Nothing is run: a command is split the way `sh` would split a simple
 * pipeline (text/shell-words.ts), and the first word of each part, and of each
 * command substitution in it, is looked for on PATH (from the verb's
 * environment), in `node_modules/.bin`, in the project's virtualenv (`.venv`,
 * `venv`) or, for a package manager's `run`, among the scripts of the
 * package.json in the folder it runs in; a script found is followed into its
 * own commands, which the package manager runs in that folder with the
 * installed binaries on PATH (`npm test` running `vitest run` needs vitest
 * installed, not only the script). A word it cannot know statically (a
 * variable, a substitution's output) is not looked up; the programs of the
 * substitution are.
 */

export interface ProgramCheck {
	/** The job or scope gate, e.g. `test`, `scopes.web`. */
	owner: string;
	/** The program or script looked for. */
	program: string;
	found: boolean;
	/** Where it was found (a path, `script "test" in package.json`, `shell builtin`), or why it is missing. */
	detail: string;
}

const BUILTINS = new Set(
	": . [ [[ ]] alias bg break cd command continue echo eval exec exit export false fg getopts hash jobs kill printf pwd read readonly return set shift source test times trap true type ulimit umask unalias unset wait if then else elif fi for while until do done case esac in ! { } ( ) time".split(
		" ",
	),
);

/** Reserved words a command can follow (`if npx eslint .; then`, `|| { gofmt -l .; }`): the program is the next word. */
const OPENERS = new Set(["!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until"]);

/** Words before the program that only change how it runs. */
const WRAPPERS = new Set(["exec", "command", "nohup", "env", "time", "nice"]);

const YARN_COMMANDS = new Set([
	"install",
	"add",
	"remove",
	"up",
	"upgrade",
	"dlx",
	"exec",
	"workspace",
	"workspaces",
	"why",
	"info",
	"init",
	"config",
	"cache",
	"set",
	"npm",
	"pack",
	"publish",
	"link",
	"unlink",
	"constraints",
	"plugin",
	"version",
	"bin",
	"node",
]);

export function checkCommand(root: string, owner: string, command: string, env: Readonly<Record<string, string | undefined>>): Promise<ProgramCheck[]> {
	return checkLine(root, owner, command, env, root, 0, new Set());
}

/** Substitutions inside substitutions, and scripts that run scripts, are followed this deep. */
const MAX_NESTING = 8;

async function checkLine(
	root: string,
	owner: string,
	line: string,
	env: Readonly<Record<string, string | undefined>>,
	start: string,
	nesting: number,
	/** Scripts already followed in this command (folder and name): a script run twice, or by several others, is looked through once. */
	followed: Set<string>,
): Promise<ProgramCheck[]> {
	const checks: ProgramCheck[] = [];
	let cwd = start;
	for (const { words, substitutions } of parseCommands(line)) {
		// sh runs a command's substitutions first, in the folder the command runs in (a `cd` inside one stays there).
		if (nesting < MAX_NESTING) for (const body of substitutions) checks.push(...(await checkLine(root, owner, body, env, cwd, nesting + 1, followed)));
		let index = 0;
		for (;;) {
			while (index < words.length && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[index] ?? "") || OPENERS.has(words[index] ?? ""))) index++;
			if (!WRAPPERS.has(words[index] ?? "")) break;
			index++;
			while (index < words.length && (/^-/.test(words[index] ?? "") || /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[index] ?? ""))) index++;
		}
		const program = words[index];
		if (program === undefined || unknowable(program)) continue;
		const rest = words.slice(index + 1);
		if (program === "cd") {
			const target = rest[0];
			if (target !== undefined && !unknowable(target)) cwd = resolve(cwd, target);
			continue;
		}
		if (BUILTINS.has(program)) continue;
		const where = await locate(root, cwd, program, env);
		checks.push({ owner, program, found: where !== null, detail: where ?? missingDetail(program) });
		if (where === null) continue;
		checks.push(...(await innerChecks(root, owner, cwd, program, rest, env, nesting, followed)));
	}
	return checks;
}

/** What a package manager or runner runs in its turn: a script and the programs its commands start, or a binary of the project. */
async function innerChecks(
	root: string,
	owner: string,
	cwd: string,
	program: string,
	args: string[],
	env: Readonly<Record<string, string | undefined>>,
	nesting: number,
	followed: Set<string>,
): Promise<ProgramCheck[]> {
	const check = await innerCheck(root, cwd, program, args, env);
	if (check === null) return [];
	const checks: ProgramCheck[] = [{ owner, program: check.program, found: check.found, detail: check.detail }];
	// The script's own commands, run in its folder (a script that runs another script is followed as deep as substitutions are).
	// Under Yarn's Plug'n'Play its binaries are in no node_modules/.bin, only Yarn finds them: not followed.
	// Each script once per command: scripts that each run the next twice would otherwise be looked through 2^depth times.
	const body = check.script;
	const key = `${cwd}\0${check.program}`;
	if (body === undefined || followed.has(key) || nesting >= MAX_NESTING) return checks;
	followed.add(key);
	if (!(program === "yarn" && (await plugAndPlay(root, cwd)))) checks.push(...(await checkLine(root, owner, body, env, cwd, nesting + 1, followed)));
	return checks;
}

/** Yarn 2+ without a node_modules linker: the nearest .yarnrc.yml from the folder up to the root decides. */
async function plugAndPlay(root: string, cwd: string): Promise<boolean> {
	let packageManager: string | null = null;
	for (const dir of ancestors(root, cwd)) {
		const yarnrc = await readSmall(join(dir, ".yarnrc.yml"));
		if (yarnrc !== null) return !installsNodeModules("yarn", yarnrc, true);
		packageManager ??= readManifest(await readSmall(join(dir, "package.json"))).packageManager;
	}
	// No settings file: Yarn 2 and later (as corepack's packageManager names it) default to Plug'n'Play.
	return isYarnBerry(null, packageManager);
}

/** The script or binary a runner's arguments name; `script` is the body of a script found. */
async function innerCheck(
	root: string,
	cwd: string,
	program: string,
	args: string[],
	env: Readonly<Record<string, string | undefined>>,
): Promise<(Omit<ProgramCheck, "owner"> & { script?: string }) | null> {
	const first = args[0];
	if (first === undefined || first.startsWith("-")) return null;
	const scriptOf = async (name: string | undefined) => {
		if (name === undefined || name.startsWith("-") || unknowable(name)) return null;
		const scripts = await scriptsIn(cwd);
		if (scripts === null) return { program: name, found: false, detail: `no readable package.json in ${displayDir(root, cwd)}` };
		const script = scripts.get(name);
		return script !== undefined
			? { program: name, found: true, detail: `script "${name}" in ${displayDir(root, cwd, "package.json")}`, script }
			: { program: name, found: false, detail: `${displayDir(root, cwd, "package.json")} has no "${name}" script` };
	};
	const binary = async (name: string | undefined) => {
		if (name === undefined || name.startsWith("-") || unknowable(name)) return null;
		const where = await locate(root, cwd, name, env);
		return { program: name, found: where !== null, detail: where ?? missingDetail(name) };
	};
	switch (program) {
		case "npm":
			if (first === "test" || first === "t") return args.length === 1 ? scriptOf("test") : null;
			return (first === "run" || first === "run-script") && args.length === 2 ? scriptOf(args[1]) : null;
		case "pnpm":
			if (first === "run" && args.length === 2) return scriptOf(args[1]);
			return first === "exec" ? binary(args[1]) : null;
		case "yarn":
			if (first === "run") return args.length === 2 ? scriptOf(args[1]) : null;
			if (YARN_COMMANDS.has(first)) return null;
			return (await scriptsIn(cwd))?.has(first) ? scriptOf(first) : binary(first);
		case "bun":
			// `bun run file.ts` runs a file; only a bare name is a script (or a binary of the project).
			if (first !== "run" || args.length !== 2 || /[./]/.test(args[1] ?? "")) return null;
			return (await scriptsIn(cwd))?.has(args[1] ?? "") ? scriptOf(args[1]) : binary(args[1]);
		case "npx":
		case "bunx":
			return binary(first);
		case "uv":
			return first === "run" ? binary(args[1]) : null;
		default:
			return null;
	}
}

/** Where `program` would be found when run from `cwd`, or null. */
async function locate(root: string, cwd: string, program: string, env: Readonly<Record<string, string | undefined>>): Promise<string | null> {
	if (program.includes("/")) {
		const path = isAbsolute(program) ? program : resolve(cwd, program);
		return (await isFile(path)) ? displayDir(root, path) : null;
	}
	const onPath = findExecutable(program, env);
	if (onPath) return onPath;
	for (const dir of localBinDirs(root, cwd)) {
		const path = join(dir, program);
		if (await isFile(path)) return displayDir(root, path);
	}
	return null;
}

/** node_modules/.bin from the folder up to the root (workspaces hoist), and the project's virtualenvs. */
function localBinDirs(root: string, cwd: string): string[] {
	return ancestors(root, cwd).flatMap((dir) => [join(dir, "node_modules", ".bin"), join(dir, ".venv", "bin"), join(dir, "venv", "bin")]);
}

/** The folder (the root when it is outside) and each folder above it, up to the root. */
function ancestors(root: string, cwd: string): string[] {
	const dirs: string[] = [];
	let dir = isInside(root, cwd) ? cwd : root;
	for (;;) {
		dirs.push(dir);
		if (dir === root || !isInside(root, dir)) break;
		const parent = resolve(dir, "..");
		if (parent === dir) break;
		dir = parent;
	}
	return dirs;
}

function missingDetail(program: string): string {
	return `\`${program}\` is not on PATH, in node_modules/.bin or in a virtualenv (.venv, venv)`;
}

/** The scripts of the package.json in `dir`, name → command, or null when there is none to read. */
async function scriptsIn(dir: string): Promise<Map<string, string> | null> {
	const text = await readSmall(join(dir, "package.json"));
	return text === null ? null : readManifest(text).scripts;
}

/** A manifest-sized file's text, or null when it is not a file, too big, or unreadable. */
async function readSmall(path: string): Promise<string | null> {
	const info = await stat(path).catch(() => null);
	if (!info?.isFile() || info.size > MAX_MANIFEST_BYTES) return null;
	return Bun.file(path)
		.text()
		.catch(() => null);
}

async function isFile(path: string): Promise<boolean> {
	return (await stat(path).catch(() => null))?.isFile() ?? false;
}

function displayDir(root: string, path: string, file?: string): string {
	const full = file ? join(path, file) : path;
	if (!isInside(root, full)) return full;
	const rel = full.slice(root.length).replace(/^[/\\]+/, "");
	return rel === "" ? "." : rel;
}

/** A word whose value only the shell knows: a variable, a substitution, a glob. */
function unknowable(word: string): boolean {
	return /[$`*?~]/.test(word);
}
