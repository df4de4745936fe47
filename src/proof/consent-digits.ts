/**
 * How much of a commit id a Proof line shows, and the least `accept --sha`
 * takes. The owner approves a landing by these digits, so they must name
 * one commit however the agent builds the next: a hostile review made a
 * second commit sharing a 7-digit prefix in 16 s on 2 cores (2^28 tries);
 * 12 digits take 2^48.
 */
export const CONSENT_DIGITS = 12;

/** The commit as a Proof line and a consent name it. */
export function consentSha(sha: string): string {
	return sha.slice(0, CONSENT_DIGITS);
}
