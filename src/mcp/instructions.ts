import { GUIDE_STEPS, type LooseVerb } from "../contract/verb.ts";
import { LOOSE_VERBS } from "../registry.ts";
import { resourceUris } from "./resources.ts";

/**
 * The server's `instructions`: loaded by capable clients on connect. The
 * first paragraph stands alone (clients may cut after 512 characters). The
 * "How to work" list is the registry's: each tool's `mcpGuide` under its
 * step, and every resource a verb declares.
 */
const OPENING = `discern runs this repository's engineering practice. Call discern_status first: it says where you are, what is configured, whether a Proof covers the current commit, and the one next action. "Done" means the project's own declared checks passed on the committed tree: only discern_done says so, with a Proof line to relay verbatim. Never land work on the trunk without the owner's consent.`;

const PATHS =
	"Every project tool takes an optional absolute `path` naming the checkout to act on; relative paths are refused. Without it, tools act on the server's working root.";

const RESULTS = [
	"Results are envelopes: `ok`, `message`, `hints` (follow them), `error` (a stable code) on failure.",
	"Send a progressToken on long calls for progress; cancelling a call stops every job it started.",
];

function instructionsFor(verbs: readonly LooseVerb[]): string {
	const steps = GUIDE_STEPS.map((step) => verbs.flatMap((verb) => (verb.mcpGuide?.step === step ? [verb.mcpGuide.text] : [])).join(" ")).filter(
		(line) => line !== "",
	);
	const resources = `Resources carry the same data as the tools: ${inWords(resourceUris(verbs))}.`;
	const lines = [PATHS, ...steps, ...RESULTS, resources];
	return `${OPENING}\n\nHow to work:\n${lines.map((line) => `- ${line}`).join("\n")}`;
}

/** "a, b and c". */
function inWords(items: readonly string[]): string {
	return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

export const INSTRUCTIONS = instructionsFor(LOOSE_VERBS);
