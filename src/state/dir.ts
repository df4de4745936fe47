import { join } from "node:path";

/**
 * Per-checkout gate state, in the checkout's own git admin dir (never
 * committed): the Proof marker, the last run, and run outputs.
 */
export function stateDir(gitDir: string): string {
	return join(gitDir, "discern");
}
