/** The names in git's `-z` listing (`--name-only -z`, `ls-files -z`): NUL-separated, the empty field after the last one dropped. */
export function nulSeparated(output: string): string[] {
	return output.split("\0").filter((name) => name !== "");
}
