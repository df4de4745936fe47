import { chmod, copyFile, lstat, mkdir, readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { git } from "../git/run.ts";
import { resolveInside } from "../platform/files.ts";

/**
 * The env values every command run in a worktree gets: the names listed in
 * `inherit_env` (from discern's own environment), the KEY=VALUE lines of the
 * main checkout's `env_files` (an untracked one is copied into the worktree,
 * mode 0600: a fresh checkout would lack it), and the worktree's id and port.
 */
export interface EnvValues {
	values: Record<string, string>;
	/** env files copied into the worktree, relative to it. */
	copied: string[];
}

export interface EnvSources {
	env: Readonly<Record<string, string | undefined>>;
	inheritEnv: readonly string[];
	envFiles: readonly string[];
	mainRoot: string;
	worktree: string;
	id: string;
	port: number;
}

export async function worktreeEnv(sources: EnvSources): Promise<EnvValues> {
	const values: Record<string, string> = {};
	for (const name of sources.inheritEnv) {
		const value = sources.env[name];
		if (value !== undefined) values[name] = value;
	}
	const copied: string[] = [];
	for (const file of sources.envFiles) {
		// Declared paths, still held inside both checkouts: no symlinks out, no `..`.
		const source = await resolveInside(sources.mainRoot, file);
		const found = await lstat(source).catch(() => null);
		if (!found?.isFile()) continue;
		Object.assign(values, parseDotenv(await readFile(source, "utf8")));
		if (await isTracked(sources.mainRoot, file)) continue;
		const target = await resolveInside(sources.worktree, file);
		if (await lstat(target).catch(() => null)) continue;
		await mkdir(dirname(target), { recursive: true });
		await copyFile(source, target);
		await chmod600(target);
		copied.push(file);
	}
	values.DISCERN_WORKTREE_ID = sources.id;
	values.DISCERN_WORKTREE_PORT = String(sources.port);
	return { values, copied };
}

async function isTracked(root: string, file: string): Promise<boolean> {
	const result = await git(["ls-files", "--error-unmatch", "--", file], root);
	return result.exitCode === 0;
}

async function chmod600(path: string): Promise<void> {
	await chmod(path, 0o600);
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

