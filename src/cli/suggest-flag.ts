import { clip } from "../text/clip.ts";
import { nearest } from "../text/suggest.ts";
import { GLOBAL_FLAGS } from "../usage/global-flags.ts";

/**
 * The usage problem for a flag nobody declared. Global flags are
 * candidates too: `discern status --verbos` is a typo of `--verbose`, and a
 * verb with no flags of its own still takes the global ones.
 *
 * @param verb the verb it was given to, or null when it came before any verb
 * @param own the verb's own flags (long names, without dashes)
 */
export function unknownFlag(name: string, verb: string | null, own: readonly string[]): string {
	const globals = GLOBAL_FLAGS.map((flag) => flag.name).filter((flag) => !own.includes(flag));
	const where = verb === null ? "" : ` for \`discern ${verb}\``;
	const head = `unknown flag \`${clip(name)}\`${where}`;
	const close = nearest(name.replace(/^-+/, ""), [...own, ...globals]);
	if (close) return `${head}; did you mean \`--${close}\`?`;
	const list = (flags: readonly string[]) => flags.map((flag) => `--${flag}`).join(", ");
	if (verb === null) return `${head} (global flags: ${list(globals)})`;
	if (own.length === 0) return `${head} (it takes only the global flags: ${list(globals)})`;
	return `${head} (its flags: ${list(own)}; global flags: ${list(globals)})`;
}
