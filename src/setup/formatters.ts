import { parseCommands } from "../text/shell-words.ts";

/**
 * Whether a command line only checks formatting: `cargo fmt --check`,
 * `prettier --check`, `biome format` without `--write`, `ruff format
 * --check`, `black --check`, `gofmt -l`, `dprint check`. The fix stage
 * exists to write (`prepare` runs it, `done` sees what it changed as drift),
 * so a format job that only checks is proposed in the check stage instead.
 * Read with the project's own sh splitter; a runner prefix (`npx`, `pnpm
 * exec`, `uv run`, …) is looked through, and so are substitutions.
 */
export function isCheckOnlyFormatter(line: string): boolean {
	return parseCommands(line).some((command) => checksOnly(withoutRunner(command.words)) || command.substitutions.some((inner) => isCheckOnlyFormatter(inner)));
}

/** The words after the runners that start a project's installed tool. */
function withoutRunner(words: readonly string[]): readonly string[] {
	const [first, second] = words;
	if (first === "npx" || first === "bunx" || first === "pnpx") return words.slice(1);
	if ((first === "pnpm" || first === "npm") && second === "exec") return words.slice(2);
	if (first === "yarn" && second !== "run") return words.slice(1);
	if ((first === "uv" || first === "poetry" || first === "pdm" || first === "hatch") && second === "run") return words.slice(2);
	return words;
}

function checksOnly(words: readonly string[]): boolean {
	const [program, sub] = words;
	const has = (...flags: string[]) => words.some((word) => flags.includes(word));
	switch (program) {
		case "cargo":
			return sub === "fmt" && has("--check");
		case "prettier":
			return has("--check", "-c", "--list-different", "-l") && !has("--write", "-w");
		case "biome":
			return sub === "format" && !has("--write", "--fix");
		case "ruff":
			return sub === "format" && has("--check", "--diff");
		case "black":
			return has("--check", "--diff");
		case "gofmt":
			return has("-l", "-d") && !has("-w");
		case "dprint":
			return sub === "check";
		default:
			return false;
	}
}
