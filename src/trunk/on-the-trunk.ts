import { ref, type Say } from "../contract/refer.ts";
import { clip } from "../text/clip.ts";

/**
 * What discern says about the trunk itself, written once so that the
 * generated instructions, status' next action and the done and accept texts
 * say one thing: nothing is committed on the trunk by hand but the adoption
 * commit setup asks for; a red trunk is fixed as a task like any other; a
 * Proof on the trunk judges the trunk where it stands and lands nothing.
 */

/** The title of the task that fixes a red trunk, as the printed command names it. */
export const RED_TRUNK_TITLE = "fix the red trunk";

/** The title of the task that regenerates stale agent files on the trunk. */
export const REFRESH_TITLE = "refresh the agent files";

/** The message the adoption commit carries. */
export const ADOPTION_MESSAGE = "Adopt discern";

/** `\`main\``, or "the trunk" when its name is unknown. */
function named(trunk: string | null): string {
	return trunk ? `the trunk \`${clip(trunk)}\`` : "the trunk";
}

/** How a red trunk is fixed, as a sentence of its own: a task, its gate, and a landing with consent; never a commit on the trunk. */
export function redTrunkRemedy(say: Say): string {
	return say`Fix it in a task of its own: from the main checkout, ${ref("start", { title: RED_TRUNK_TITLE })}, then fix and commit in the worktree it returns, run ${ref("done")} there, and ${ref("accept")} once the owner consents. Never commit the fix on the trunk.`;
}

/** The red trunk, then its remedy. */
export function redTrunkSentence(say: Say, trunk: string | null): string {
	const which = named(trunk);
	return `${which.charAt(0).toUpperCase()}${which.slice(1)} itself is red. ${redTrunkRemedy(say)}`;
}

/** What a Proof earned on the trunk means. */
export function trunkProofSentence(trunk: string | null): string {
	return `Relay the Proof line verbatim. It judges ${named(trunk)} itself: there is nothing to land.`;
}

/** Stale agent files on the trunk: regenerated files are a change like any other, a task's. */
export function refreshOnTrunk(say: Say): string {
	return say`On the trunk that is a task's change: ${ref("start", { title: REFRESH_TITLE })}, then in its worktree run ${ref("refresh")}, commit what it writes, run ${ref("done")}, and ${ref("accept")} once the owner consents.`;
}
