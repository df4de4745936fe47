import { lstat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { readRegularFile } from "../platform/files.ts";
import { type Captured, type CaptureOptions, capture } from "../platform/process.ts";
import { discoverRepository } from "./discover.ts";

/**
 * The programs a repository's own configuration names stay unstarted when
 * discern runs git for a person.
 *
 * Anything in a worktree can write its repository's `.git/config`,
 * `config.worktree` and the files they include: a `filter.<name>.clean`
 * that git runs when `status` looks at a touched file, a `smudge` that
 * accept's fast-forward runs in the main checkout, a merge driver, a
 * signing program. Run by discern as the person (status, worktree list,
 * drop, prune, accept, update), such a command would run outside any
 * sandbox the agent had. So, before a git command that can start one, the
 * repository's configuration is read once (one `git config` per
 * repository and environment, kept for the run; none when its files
 * plainly mention no such key) and every such key the
 * repository's own scopes (local, worktree, or a file they include) set is
 * given back, on the command's own configuration, the value the person's
 * scopes give it (system, global, `GIT_CONFIG_*`): Git LFS installed in
 * `~/.gitconfig` keeps working. A key only the repository sets gets a value
 * that starts nothing: a filter passes content through unchanged (a
 * checkout then writes the blob's stored bytes), a merge driver reports a
 * conflict, a commit is not signed.
 *
 * Not covered here, because discern's git never reaches them: diff drivers
 * (no call prints a patch), transports and credential helpers (every
 * protocol is disallowed, git/run.ts), pagers and editors (no terminal; the
 * environment names none). The repository's hooks and fsmonitor are off on
 * every call already (git/run.ts).
 */
export interface PersonSettings {
	/** Environment entries (`GIT_CONFIG_COUNT`, `GIT_CONFIG_KEY_n`, `GIT_CONFIG_VALUE_n`) carrying the settings. */
	env: Record<string, string>;
}

/** Keys that name a program git may start in a command discern runs, or choose whether one starts. */
const PROGRAM_KEYS =
	"^(filter\\..+\\.(clean|smudge|process|required)|merge\\..+\\.driver|core\\.attributesfile|gpg\\.(.+\\.)?program|gpg\\.format|gpg\\.ssh\\.defaultkeycommand|commit\\.gpgsign|tag\\.gpgsign)$";

/**
 * git commands discern calls that never start a program the configuration
 * names (no content conversion, merge or signature): asked without reading
 * the configuration first. Any other command is read for.
 */
const STARTS_NOTHING = new Set([
	"rev-parse",
	"cat-file",
	"ls-tree",
	"for-each-ref",
	"show-ref",
	"symbolic-ref",
	"update-ref",
	"rev-list",
	"merge-base",
	"config",
	"var",
	"check-ref-format",
	"check-ignore",
	"check-attr",
	"count-objects",
	"mktree",
	"name-rev",
	"log",
]);

const REPOSITORY_SCOPES = new Set(["local", "worktree"]);

/** What a key gets when only the repository sets it: nothing starts. */
function neutral(key: string, env: Readonly<Record<string, string | undefined>>): string {
	if (key.startsWith("filter.")) return key.endsWith(".required") ? "false" : "";
	// A driver that always fails: git leaves the file in conflict instead of running the repository's program.
	if (key.startsWith("merge.")) return "exit 1";
	if (key === "core.attributesfile") return defaultAttributesFile(env);
	if (key === "gpg.format") return "openpgp";
	if (key === "gpg.x509.program") return "gpgsm";
	if (key === "gpg.ssh.program") return "ssh-keygen";
	if (key.endsWith(".program")) return "gpg";
	if (key.endsWith("gpgsign")) return "false";
	return "";
}

/** git's own default for `core.attributesFile`: `$XDG_CONFIG_HOME/git/attributes`, else `~/.config/git/attributes`. */
function defaultAttributesFile(env: Readonly<Record<string, string | undefined>>): string {
	if (env.XDG_CONFIG_HOME) return `${env.XDG_CONFIG_HOME}/git/attributes`;
	if (env.HOME) return `${env.HOME}/.config/git/attributes`;
	return "/dev/null";
}

/** The git subcommand of an argument list: the first word past leading `-c key=value` pairs and options. */
export function subcommandOf(args: readonly string[]): string | undefined {
	for (let at = 0; at < args.length; at++) {
		const arg = args[at];
		if (arg === "-c" || arg === "-C") {
			at++;
			continue;
		}
		if (arg?.startsWith("-")) continue;
		return arg;
	}
	return undefined;
}

/** Whether `args` is a command that may start a program its configuration names. */
export function mayStartPrograms(args: readonly string[]): boolean {
	const command = subcommandOf(args);
	if (command === undefined || STARTS_NOTHING.has(command)) return false;
	// ls-files converts content only to tell modified files (-m): the listings discern asks for read the index and the folder.
	if (command === "ls-files") return args.includes("-m") || args.includes("--modified");
	return true;
}

/**
 * The overrides from `git config --show-scope -z --get-regexp` output:
 * for each program key a repository scope sets, the person's last value,
 * else {@link neutral}. Exported for tests.
 */
export function overridesFrom(listing: string, env: Readonly<Record<string, string | undefined>>): [string, string][] {
	const fromRepository = new Set<string>();
	const fromPerson = new Map<string, string>();
	const records = listing.split("\0");
	for (let at = 0; at + 1 < records.length; at += 2) {
		const scope = records[at] ?? "";
		const entry = records[at + 1] ?? "";
		const newline = entry.indexOf("\n");
		// A key with no `=` (a bare boolean) has no newline and no value: git reads it as true.
		const key = newline < 0 ? entry : entry.slice(0, newline);
		const value = newline < 0 ? "true" : entry.slice(newline + 1);
		if (REPOSITORY_SCOPES.has(scope)) fromRepository.add(key);
		else fromPerson.set(key, value);
	}
	return [...fromRepository].sort().map((key) => [key, fromPerson.get(key) ?? neutral(key, env)]);
}

/** Environment entries that add `settings` after any the environment already carries (`GIT_CONFIG_COUNT`). */
export function configEnv(settings: readonly [string, string][], env: Readonly<Record<string, string | undefined>>): Record<string, string> {
	if (settings.length === 0) return {};
	const had = Number.parseInt(env.GIT_CONFIG_COUNT ?? "0", 10);
	const start = Number.isSafeInteger(had) && had > 0 ? had : 0;
	const out: Record<string, string> = { GIT_CONFIG_COUNT: String(start + settings.length) };
	settings.forEach(([key, value], index) => {
		out[`GIT_CONFIG_KEY_${start + index}`] = key;
		out[`GIT_CONFIG_VALUE_${start + index}`] = value;
	});
	return out;
}

/** What git's configuration depends on, beside the folder: the environment that names the repository and the person's files. */
const CONFIG_ENV = [
	"GIT_DIR",
	"GIT_COMMON_DIR",
	"GIT_WORK_TREE",
	"GIT_CONFIG_GLOBAL",
	"GIT_CONFIG_SYSTEM",
	"GIT_CONFIG_NOSYSTEM",
	"GIT_CONFIG_PARAMETERS",
	"HOME",
	"XDG_CONFIG_HOME",
];

let cache = new Map<string, Promise<PersonSettings | Captured>>();

/**
 * Forget what was read: a verb's run starts afresh, and after the gate's
 * jobs ran (a job can write the configuration) the next command reads it
 * again.
 */
export function forgetPersonSettings(): void {
	cache = new Map();
}

/**
 * The settings a command in `cwd` runs with so that no program the
 * repository's own configuration names starts (see above), or git's
 * failure to read the configuration (the command is then not run: it
 * would read the same configuration).
 */
export function personSettings(argv: (args: readonly string[]) => string[], cwd: string, options: CaptureOptions): Promise<PersonSettings | Captured> {
	const env = options.env ?? process.env;
	const key = [cwd, ...CONFIG_ENV.map((name) => env[name] ?? "\u0001")].join("\0");
	const known = cache.get(key);
	if (known) return known;
	const reading = mentionsNoProgram(cwd, env).then(async (plain): Promise<PersonSettings | Captured> => {
		if (plain) return { env: {} };
		const read = await capture(argv(["config", "--includes", "--show-scope", "-z", "--get-regexp", PROGRAM_KEYS]), {
			cwd,
			env,
			...(options.signal ? { signal: options.signal } : {}),
		});
		// 1: no key matched.
		if (read.exitCode === 1 && read.stdout === "") return { env: {} };
		if (read.exitCode !== 0) return { ...read, stderr: read.stderr || `git config exited ${read.exitCode}` };
		return { env: configEnv(overridesFrom(read.stdout, env), env) };
	});
	cache.set(key, reading);
	// A failed read (a deadline, a signal) is not kept: the next command asks again.
	void reading.then((read) => {
		if (!("env" in read) && cache.get(key) === reading) cache.delete(key);
	});
	return reading;
}

/**
 * What a configuration file must mention, with whitespace removed and
 * lower-cased, before it can set a key of {@link PROGRAM_KEYS} or include
 * another file: a section header (`[filter "x"]`, `[filter.x]`, `[merge
 * "x"]`, `[gpg]`, `[include]`, `[includeIf …]`) or the key's own name.
 * git accepts nothing between `[` and a section's name, nor a key split
 * over lines; a mention in a comment or a value only costs the read.
 */
const MENTIONS = ["[filter", "[merge", "[include", "[gpg", "attributesfile", "gpgsign"];

/** More than any hand-kept configuration holds; a larger file is read by git. */
const CONFIG_BYTES = 1024 * 1024;

/**
 * Whether the repository around `cwd`, found as git finds it
 * (git/discover.ts: the plain layouts only), has configuration files that
 * plainly set no program key: then git need not be asked. Anything else
 * (git's environment naming the repository, a file that is not a plain
 * regular file, a mention) is false, and git reads the configuration.
 */
async function mentionsNoProgram(cwd: string, env: Readonly<Record<string, string | undefined>>): Promise<boolean> {
	const found =
		env.GIT_DIR && env.GIT_COMMON_DIR ? namedRepository(cwd, env.GIT_DIR, env.GIT_COMMON_DIR) : await discoverRepository(cwd, env).catch(() => null);
	if (!found) return false;
	const files = [join(found.commonDir, "config"), join(found.gitDir, "config.worktree"), join(found.commonDir, "config.worktree")];
	for (const [at, file] of files.entries()) {
		const info = await lstat(file).catch(() => null);
		if (!info && at > 0) continue;
		if (!info?.isFile()) return false;
		const bytes = readRegularFile(file, CONFIG_BYTES);
		if (!bytes) return false;
		// latin1: one character per byte, so no byte sequence lower-cases into an ASCII letter it was not.
		const text = bytes.toString("latin1").toLowerCase().replace(/\s+/g, "");
		if (MENTIONS.some((mention) => text.includes(mention))) return false;
	}
	return true;
}

/**
 * The repository git's environment names whole (`GIT_DIR` and
 * `GIT_COMMON_DIR`, as the evidence and the reads of nested repositories
 * through a git dir of discern's own set them): git reads its configuration
 * from those folders, found without a walk.
 */
function namedRepository(cwd: string, gitDir: string, commonDir: string): { gitDir: string; commonDir: string } {
	return { gitDir: resolve(cwd, gitDir), commonDir: resolve(cwd, commonDir) };
}
