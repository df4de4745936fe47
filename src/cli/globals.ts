import { resolve } from "node:path";

/**
 * Flags every verb accepts, wherever they appear on the line:
 * `--json`, `--cwd DIR`/`-C DIR`, `--verbose`, `--quiet`/`-q`, `--version`/`-v`, `--help`/`-h`
 * (described for help and "did you mean" in `usage/global-flags.ts`).
 */
export interface Globals {
	json: boolean;
	/** Fuller text output (whole job output, every path); a verb that takes `verbose` itself gets it too. */
	verbose: boolean;
	/** No narration or progress on stderr. */
	quiet: boolean;
	cwd: string | undefined;
	version: boolean;
	help: boolean;
	/** Everything that is not a global flag, in order. */
	rest: string[];
}

export type GlobalsOutcome = { ok: true; globals: Globals } | { ok: false; message: string };

export function extractGlobals(argv: readonly string[]): GlobalsOutcome {
	const globals: Globals = { json: false, verbose: false, quiet: false, cwd: undefined, version: false, help: false, rest: [] };
	for (let i = 0; i < argv.length; i++) {
		const token = argv[i] ?? "";
		if (token === "--") {
			globals.rest.push(...argv.slice(i));
			break;
		}
		if (token === "--json") globals.json = true;
		else if (token === "--verbose") globals.verbose = true;
		else if (token === "--quiet" || token === "-q") globals.quiet = true;
		else if (token === "--version" || token === "-v") globals.version = true;
		else if (token === "--help" || token === "-h") globals.help = true;
		else if (token === "--cwd" || token === "-C") {
			const value = argv[++i];
			if (value === undefined || value === "" || value.startsWith("-")) return { ok: false, message: `\`${token}\` needs a directory` };
			globals.cwd = value;
		} else if (token.startsWith("--cwd=")) {
			const value = token.slice("--cwd=".length);
			if (value === "") return { ok: false, message: "`--cwd` needs a directory" };
			globals.cwd = value;
		} else globals.rest.push(token);
	}
	return { ok: true, globals };
}

/** The folder the line acts in: `--cwd DIR` taken from where discern started. */
export function resolveCwd(base: string, requested: string | undefined): string {
	return requested === undefined ? base : resolve(base, requested);
}
