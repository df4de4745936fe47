import { chmod, copyFile, lstat, mkdir, readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { git } from "../git/run.ts";
import { resolveInside, WriteDeniedError } from "../platform/files.ts";
import { fileHash } from "./file-hash.ts";
import { mainCheckoutOf } from "./git-worktrees.ts";
import { worktreePort } from "./id.ts";

/**
 * The one environment every command run for a worktree gets — a resource's
 * `create` and `destroy`, `setup.steps`, `setup.ensure` (at `start` and
 * after `update`), whoever runs it (`start` and its rollback, `update`,
 * `accept`, `worktree teardown|drop|prune`):
 *
 * - discern's own environment (values left unset dropped),
 * - the names listed in `inherit_env`, each from the main checkout's
 *   `env_files` (later files win over earlier ones), else from discern's own
 *   environment; no other key of an env file is exported,
 * - `DISCERN_ROOT` (the worktree), `DISCERN_WORKTREE_ID`, `DISCERN_WORKTREE_PORT`.
 *
 * It is rebuilt from an `EnvSpec` each time: the spec (names and paths, never
 * values) is what the resource ledger records, so a destroy sees the values
 * its create saw, read from the same files under the same names.
 */
export interface EnvSpec {
	/** The main checkout: where the env files are read. */
	main_root: string;
	env_files: string[];
	inherit_env: string[];
	id: string;
	port: number;
	/** The worktree's absolute path (`DISCERN_ROOT`). */
	dir: string;
}

export type ProcessEnv = Readonly<Record<string, string | undefined>>;

/** The keys discern itself sets for a worktree's commands: never taken from the caller's environment. */
const OWN_KEYS = ["DISCERN_ROOT", "DISCERN_WORKTREE_ID", "DISCERN_WORKTREE_PORT"] as const;

export function envSpecFor(
	worktree: { inherit_env: readonly string[]; env_files: readonly string[] },
	where: { mainRoot: string; dir: string; id: string },
): EnvSpec {
	return {
		main_root: where.mainRoot,
		env_files: [...worktree.env_files],
		inherit_env: [...worktree.inherit_env],
		id: where.id,
		port: worktreePort(where.id),
		dir: where.dir,
	};
}

/** An env file discern was told to read but will not (a path out of the checkout, a symlink). */
export class EnvFileRefused extends Error {
	override readonly name = "EnvFileRefused";
}

export interface CommandEnv {
	env: Record<string, string>;
	/** The `inherit_env` names that got a value (from an env file or discern's environment). */
	inherited: string[];
	/** The `inherit_env` names no env file and no environment variable set. */
	missing: string[];
}

export async function worktreeCommandEnv(processEnv: ProcessEnv, spec: EnvSpec): Promise<CommandEnv> {
	const env: Record<string, string> = {};
	for (const [key, value] of Object.entries(processEnv)) if (value !== undefined) env[key] = value;
	for (const key of OWN_KEYS) delete env[key];
	const fromFiles = await readEnvFiles(spec.main_root, spec.env_files);
	const inherited: string[] = [];
	const missing: string[] = [];
	for (const name of spec.inherit_env) {
		const value = Object.hasOwn(fromFiles, name) ? fromFiles[name] : processEnv[name];
		if (value === undefined) {
			missing.push(name);
			continue;
		}
		env[name] = value;
		inherited.push(name);
	}
	env.DISCERN_ROOT = spec.dir;
	env.DISCERN_WORKTREE_ID = spec.id;
	env.DISCERN_WORKTREE_PORT = String(spec.port);
	return { env, inherited, missing };
}

/**
 * The command env for a checkout of this repository: a task worktree's own
 * (its id and port, env values from the main checkout's files), or, in the
 * main checkout or a worktree discern did not start, the same without an id
 * or a port. `update` and `worktree ensure` use it for `setup.ensure`.
 */
export async function checkoutCommandEnv(
	processEnv: ProcessEnv,
	repository: { root: string; commonDir: string; location: "main" | "worktree" },
	worktree: { inherit_env: readonly string[]; env_files: readonly string[] },
	id: string | null,
): Promise<Record<string, string>> {
	const mainRoot = await mainCheckoutOf(repository);
	if (!mainRoot) return Object.fromEntries(Object.entries(processEnv).filter((entry): entry is [string, string] => entry[1] !== undefined));
	const { env } = await worktreeCommandEnv(processEnv, envSpecFor(worktree, { mainRoot, dir: repository.root, id: id ?? "" }));
	// Only a task worktree has an id and a port of its own.
	if (!id) {
		delete env.DISCERN_WORKTREE_ID;
		delete env.DISCERN_WORKTREE_PORT;
	}
	return env;
}

/** Every KEY=VALUE of the env files, later files winning; only ever read for the names `inherit_env` lists. */
async function readEnvFiles(mainRoot: string, files: readonly string[]): Promise<Record<string, string>> {
	const values: Record<string, string> = {};
	for (const file of files) {
		const source = await envFilePath(mainRoot, file);
		const found = await lstat(source).catch(() => null);
		if (!found?.isFile()) continue;
		Object.assign(values, parseDotenv(await readFile(source, "utf8")));
	}
	return values;
}

async function envFilePath(root: string, file: string): Promise<string> {
	try {
		// Declared paths, still held inside the checkout: no symlinks out, no `..`.
		return await resolveInside(root, file);
	} catch (error) {
		if (error instanceof WriteDeniedError)
			throw new EnvFileRefused(`discern will not read the env file ${JSON.stringify(file)} ([worktree].env_files): ${error.message}`);
		throw error;
	}
}

/**
 * Copy the main checkout's untracked env files into a new worktree (mode
 * 0600): a fresh checkout lacks them, and the project's own tools read them
 * there. A tracked one is in the checkout already; one already there stays.
 * Each copy comes back with the sha256 of what was copied: the task record
 * keeps it, so that removing the worktree later can tell an edit made there.
 */
export async function copyEnvFiles(mainRoot: string, worktree: string, files: readonly string[]): Promise<{ path: string; sha256: string }[]> {
	const copied: { path: string; sha256: string }[] = [];
	for (const file of files) {
		const source = await envFilePath(mainRoot, file);
		const found = await lstat(source).catch(() => null);
		if (!found?.isFile()) continue;
		if (await isTracked(mainRoot, file)) continue;
		let target: string;
		try {
			target = await resolveInside(worktree, file);
		} catch (error) {
			if (error instanceof WriteDeniedError)
				throw new EnvFileRefused(`discern will not copy the env file ${JSON.stringify(file)} into the worktree: ${error.message}`);
			throw error;
		}
		if (await lstat(target).catch(() => null)) continue;
		await mkdir(dirname(target), { recursive: true });
		await copyFile(source, target);
		await chmod(target, 0o600);
		const sha256 = await fileHash(target);
		if (sha256) copied.push({ path: file, sha256 });
	}
	return copied;
}

async function isTracked(root: string, file: string): Promise<boolean> {
	const result = await git(["ls-files", "--error-unmatch", "--", file], root);
	return result.exitCode === 0;
}

/**
 * dotenv lines: `KEY=VALUE`, an optional `export `, `#` comments, values in
 * single quotes (literal), double quotes (`\n` escapes) or bare (an inline
 * ` #` ends them). Hand-written: the format is a dozen lines, and a library
 * would also bring variable expansion, which must not happen here.
 */
export function parseDotenv(text: string): Record<string, string> {
	const out: Record<string, string> = {};
	for (const raw of text.split(/\r?\n/)) {
		const line = raw.trim();
		if (line === "" || line.startsWith("#")) continue;
		const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
		if (!match) continue;
		const [, key = "", rest = ""] = match;
		let value = rest;
		if (value.startsWith("'")) {
			const end = value.indexOf("'", 1);
			value = end > 0 ? value.slice(1, end) : value.slice(1);
		} else if (value.startsWith('"')) {
			const end = value.indexOf('"', 1);
			value = (end > 0 ? value.slice(1, end) : value.slice(1)).replaceAll("\\n", "\n");
		} else {
			value = value.replace(/\s+#.*$/, "").trim();
		}
		out[key] = value;
	}
	return out;
}
