import { fstatSync } from "node:fs";

/**
 * Whether two file descriptors write to the same place (one file, one pipe,
 * one terminal): `discern done > log 2>&1`, or a CI runner that merges
 * stdout and stderr into one log. Unknown (a closed descriptor) reads as no.
 */
export function sameDestination(first: number, second: number): boolean {
	try {
		const a = fstatSync(first);
		const b = fstatSync(second);
		return a.dev === b.dev && a.ino === b.ino;
	} catch {
		return false;
	}
}
