import type { Say } from "../contract/refer.ts";
import { defineVerb, type McpGuide } from "../contract/verb.ts";
import { InnerLoopData, InnerLoopInput } from "./schema.ts";

/**
 * `prepare` (formatters, then lint and typecheck) and `test` (the test
 * stage) are one verb twice: the fast inner loop over a part of the plan.
 * Each one's folder holds its own words and calls this factory; the rest —
 * input, data, errors, lock, exposure, the core and its rendering — is
 * theirs alike. The definition loads with the registry; the core
 * (`inner-loop.ts`) only when the verb runs.
 */
export type InnerLoopVerb = "prepare" | "test";

/** What tells one inner-loop verb from the other: its name, which names the stages it runs, and its words. */
export interface InnerLoopWords<Name extends InnerLoopVerb> {
	name: Name;
	title: string;
	summary: string;
	mcpDescription: string;
	mcpGuide: McpGuide;
	examples: readonly string[];
	/** The hint when the config declares nothing for it to run. */
	nothingDeclared: string;
	/** The last hint of a green run: where the loop goes next (a `(say): string` function: its references render per surface). */
	next: (say: Say) => string;
}

export function defineInnerLoopVerb<const Name extends InnerLoopVerb>(words: InnerLoopWords<Name>) {
	return defineVerb({
		name: words.name,
		title: words.title,
		summary: words.summary,
		mcpDescription: words.mcpDescription,
		mcpGuide: words.mcpGuide,
		group: "Daily loop",
		input: InnerLoopInput,
		data: InnerLoopData,
		errors: ["no_repository", "no_project", "invalid_config", "locked", "write_denied", "gate_failed", "interrupted"] as const,
		extras: ["plan", "steps", "diagnostics"],
		lock: "checkout",
		annotations: "mutating",
		exposure: { tool: `discern_${words.name}`, project: true },
		cli: { examples: words.examples },
		load: () => import("./inner-loop.ts").then((module) => module.innerLoopModule(words)),
	});
}
