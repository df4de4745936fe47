import { posix } from "node:path";
import { parse as parseJsonc } from "jsonc-parser";
import { parse as parseToml } from "smol-toml";
import { isRecord } from "../contract/record.ts";
import { interpreterCandidates, interpreterStems, isGlobWord, runnerFiles, shWords } from "./word-resolvers.ts";

/**
 * The repository paths an agent's settings file names: a Claude Code hook's
 * command (`"$CLAUDE_PROJECT_DIR"/scripts/hook.sh`), an MCP server's
 * `command` and `args` (`node tools/server.js`), Gemini CLI's
 * `contextFileName`, Codex's `config.toml`, an opencode `instructions`
 * list. Rather than one reader per tool, every string a JSON, JSONC, TOML or
 * YAML steering file holds is split into words as a shell would, and each
 * word that names a file or folder of the trunk's or the branch's tree is
 * what an agent reads or runs. A word that names nothing there (`npx`,
 * `true`, a flag) is left out, so only real paths count.
 *
 * Words are read from the repository's root and from each folder above the
 * file (`${workspaceFolder}` of `apps/web/.vscode/mcp.json` is `apps/web`),
 * after a leading `./` and project-root variables (`$CLAUDE_PROJECT_DIR/`,
 * `${workspaceFolder}/`, any `$NAME/`) are dropped: wide on purpose.
 *
 * Each word is resolved as the program that reads it would
 * (scopes/word-resolvers.ts): unquoted and unescaped as `sh` does (and
 * also as written, a `\` read as Windows' `/`), a glob expanded against
 * the trees, a module path tried with the extensions and index files an
 * interpreter tries, and a task runner's name (`make`, `npm`, `uv`…)
 * standing for the file it runs from.
 *
 * `exists` answers for a repository path compared as a disk would
 * (scopes/steering.ts `normalPath`); `glob` lists the files of either tree
 * a pattern matches. With `everyWord`, the whole text is read as one
 * command line: a script's words, or an agent's markdown, frontmatter,
 * code spans and !`cmd` lines alike (proof/steering-reach.ts). In `prose`,
 * a pattern of only glob characters (a markdown `*` bullet, `**` bold) is
 * punctuation, not a glob.
 */
export function pathsNamedIn(
	text: string,
	from: string,
	exists: (path: string) => boolean,
	options: {
		everyWord?: boolean;
		prose?: boolean;
		glob?: (pattern: string) => readonly string[];
		/** Whether a path may name a file: a path of the trees, or a name one is reached by; `lastName` the same for its last name alone (checked first, once per word). */
		reachable?: { path: (path: string) => boolean; lastName: (name: string) => boolean };
	} = {},
): string[] {
	const found = new Set<string>();
	const bases = folderChain(posix.dirname(from));
	const words = new Set<string>();
	for (const value of options.everyWord ? [text] : settingsStrings(text, from)) for (const word of wordsOf(value)) words.add(word);
	const inTree = (base: string, path: string) => {
		const joined = posix.normalize(posix.join(base, path)).replace(/\/+$/, "");
		return joined === "." || joined === ".." || joined.startsWith("../") || joined.startsWith("/") ? null : joined;
	};
	// A runner reads its file where the command starts, or in a folder a word names (`make -C dir`, `npm --prefix dir`, `uv run --directory dir`).
	const runners = runnerFiles(words);
	const folders = new Set<string>(["."]);
	for (const word of words) {
		const path = rootRelative(word);
		if (path === null) continue;
		const glob = options.glob;
		if (glob && isGlobWord(path) && (!options.prose || /[\p{L}\p{N}]/u.test(path)))
			for (const base of bases) {
				const joined = inTree(base, path);
				// Anchored where the command starts, as `sh` expands it: a slash-less pattern is a glob of that folder, not of every depth.
				if (joined !== null) for (const match of glob(joined.includes("/") ? joined : `/${joined}`)) found.add(match);
			}
		const reachable = options.reachable;
		const stems = interpreterStems(path);
		if (reachable && !stems.some((stem) => reachable.lastName(stem.slice(stem.lastIndexOf("/") + 1)))) continue;
		// The same for every base folder: made once a word, and only for a word that names something.
		let candidates: readonly string[] | undefined;
		for (const base of bases) {
			// One look-up per stem first: most words name nothing (the trees' `reachedAs` names, scopes/word-resolvers.ts).
			const joinedStems = stems.map((stem) => inTree(base, stem));
			if (!joinedStems.some((stem) => stem !== null && (!reachable || reachable.path(stem)))) continue;
			candidates ??= interpreterCandidates(path);
			for (const candidate of candidates) {
				const joined = inTree(base, candidate);
				if (joined !== null && exists(joined)) found.add(joined);
			}
			if (runners.length > 0) folders.add(path);
		}
	}
	for (const name of runners)
		for (const folder of folders)
			for (const base of bases) {
				const joined = inTree(base, posix.join(folder, name));
				if (joined !== null && exists(joined)) found.add(joined);
			}
	return [...found];
}

/**
 * A string's words, every way it may be read: as `sh` unquotes them, as
 * written (quotes dropped, a `\` kept for Windows' separator), split at `=`
 * and `,` (`--config=tools/x.json`), cut at a `:` (Claude Code's
 * `Bash(bash scripts/deploy.sh:*)`, a Python entry point `pkg.mod:main`)
 * and without a sentence's closing punctuation.
 */
function wordsOf(value: string): string[] {
	const found = new Set<string>();
	for (const word of new Set([...shWords(value), ...shellWords(value)]))
		for (const part of /[=,]/.test(word) ? [word, ...word.split(/[=,]+/)] : [word]) {
			const cut = part.indexOf(":");
			for (const each of [part, cut > 0 ? part.slice(0, cut) : "", part.replace(/[.,;:!?)\]}'"]+$/, "")]) if (each !== "") found.add(each);
		}
	return [...found];
}

/**
 * Every string of a settings file, by the project's own parsers: JSON and
 * JSONC by jsonc-parser (which reads past errors), TOML by smol-toml. A
 * TOML file that does not parse, and YAML (no YAML library is a
 * dependency), are read as a plain token scan instead: every word of the
 * text, quotes and YAML's `key:` and `- ` marks dropped. Object keys that
 * hold a `/` count too: VS Code's `chat.instructionsFilesLocations` names
 * folders by its keys.
 */
function settingsStrings(text: string, from: string): string[] {
	const name = from.toLowerCase();
	if (/\.(json|jsonc|json5)$/.test(name)) return stringsOf(parseJsonc(text, [], { allowTrailingComma: true, disallowComments: false }));
	if (name.endsWith(".toml")) {
		try {
			return stringsOf(parseToml(text));
		} catch {
			return tokenScan(text);
		}
	}
	return tokenScan(text);
}

function stringsOf(value: unknown): string[] {
	const found: string[] = [];
	const walk = (node: unknown) => {
		if (typeof node === "string") found.push(node);
		else if (Array.isArray(node)) for (const item of node) walk(item);
		else if (isRecord(node))
			for (const [key, item] of Object.entries(node)) {
				if (key.includes("/")) found.push(key);
				walk(item);
			}
	};
	walk(value);
	return found;
}

/** A YAML (or unparsable) file's words: a token scan, not a parser; wider than the values alone. */
function tokenScan(text: string): string[] {
	return text
		.split(/[\s,[\]{}#]+/)
		.map((word) => word.replace(/^-+$/, "").replace(/:$/, ""))
		.filter((word) => word !== "");
}

/**
 * A string split as a shell splits a command line, and at `=` and `,`
 * (`--config=tools/x.json`): blanks and operators separate words, quotes
 * join (`"$CLAUDE_PROJECT_DIR"/x.sh` is one word) and are dropped.
 */
export function shellWords(value: string): string[] {
	return value
		.split(/[\s;|&()<>=,]+/)
		.map((word) => word.replace(/["'`]/g, ""))
		.filter((word) => word !== "");
}

/**
 * A word as a path from the project's root, or null when it names nothing
 * inside the repository (absolute, home, a URL). Windows separators are
 * read as `/`; a leading `./` and project-root variables are dropped.
 */
export function rootRelative(word: string): string | null {
	let path = word.replace(/\\/g, "/");
	for (;;) {
		const stripped = path
			.replace(/^\$\{[^}]*\}\//, "")
			.replace(/^\$[A-Za-z_][A-Za-z0-9_]*\//, "")
			.replace(/^%[A-Za-z_][A-Za-z0-9_]*%\//, "")
			.replace(/^\.\/+/, "");
		if (stripped === path) break;
		path = stripped;
	}
	path = path.replace(/\/+$/, "");
	if (path === "" || path === "." || path.startsWith("/") || path.startsWith("~") || path.startsWith("$") || path.includes("://")) return null;
	return path;
}

/** A folder and each folder above it, the deepest first, the root (".") last. */
function folderChain(folder: string): string[] {
	const chain: string[] = [];
	for (let at = folder; ; at = posix.dirname(at)) {
		chain.push(at);
		if (at === "." || at === "/" || at === "") break;
	}
	return chain;
}
