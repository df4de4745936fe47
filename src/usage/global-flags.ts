/**
 * The flags every verb accepts, as data: the one list that help, the citty
 * command tree and "did you mean" read, so a typo of a global flag
 * (`--verbos`) is suggested like a verb's own. `cli/globals.ts` parses them.
 */
export interface GlobalFlag {
	/** Long name without dashes. */
	name: string;
	/** One-letter alias without its dash. */
	alias?: string;
	/** Placeholder for the value it takes, if any. */
	value?: string;
	description: string;
	/** Listed in each verb's help; false for flags that make sense only on their own (`--version`). */
	inVerbHelp: boolean;
}

export const GLOBAL_FLAGS: readonly GlobalFlag[] = [
	{ name: "json", description: "Print the result envelope as one JSON document, and nothing else.", inVerbHelp: true },
	{ name: "cwd", alias: "C", value: "DIR", description: "Act as if started in DIR.", inVerbHelp: true },
	{
		name: "verbose",
		description: "Fuller text output (whole job output, every path) and narration on stderr: config file, git calls, job commands.",
		inVerbHelp: true,
	},
	{ name: "quiet", alias: "q", description: "No narration on stderr: no progress, no per-job lines.", inVerbHelp: true },
	{ name: "version", alias: "v", description: "Print discern's version (with --json: as an envelope).", inVerbHelp: false },
	{ name: "help", alias: "h", description: "Help for discern or, after a verb, for that verb.", inVerbHelp: false },
];

/** Every spelling a global flag is accepted under: `--json`, `-C`, …. */
export function globalSpellings(): string[] {
	return GLOBAL_FLAGS.flatMap((flag) => [`--${flag.name}`, ...(flag.alias ? [`-${flag.alias}`] : [])]);
}
