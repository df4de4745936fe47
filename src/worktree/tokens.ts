import { basename } from "node:path";
import { slugify } from "./id.ts";

/**
 * `@token@` expansion in declared resource commands. The values come from
 * the id (`[a-z0-9-]`), a port number, a slug, and the worktree's path,
 * single-quoted: each is safe to paste into shell text as it stands, so an
 * agent's `--name` can never change what the command does.
 */
export const TOKENS = ["worktree", "db", "port", "project_slug", "dir"] as const;
export type Token = (typeof TOKENS)[number];

export interface TokenValues {
	id: string;
	port: number;
	/** `[project].name`, or absent (the repository folder's name is used). */
	projectName: string | undefined;
	repositoryRoot: string;
	/** The worktree's absolute path. */
	dir: string;
}

const TOKEN_PATTERN = /@([A-Za-z0-9_]+)@/g;

/** A POSIX shell single-quoted word. */
export function shellQuote(text: string): string {
	return `'${text.replaceAll("'", `'\\''`)}'`;
}

export function projectSlug(projectName: string | undefined, repositoryRoot: string): string {
	return slugify(projectName ?? "", 60) || slugify(basename(repositoryRoot), 60) || "project";
}

export function tokenTable(values: TokenValues): Record<Token, string> {
	return {
		worktree: values.id,
		db: values.id.replaceAll("-", "_"),
		port: String(values.port),
		project_slug: projectSlug(values.projectName, values.repositoryRoot),
		dir: shellQuote(values.dir),
	};
}

/** The `@x@` tokens in a command that discern does not know. */
export function unknownTokens(command: string): string[] {
	const known = new Set<string>(TOKENS);
	return [...command.matchAll(TOKEN_PATTERN)].map((match) => match[1] ?? "").filter((name) => !known.has(name));
}

export function expandTokens(command: string, table: Record<Token, string>): string {
	return command.replace(TOKEN_PATTERN, (whole, name: string) => (Object.hasOwn(table, name) ? table[name as Token] : whole));
}
