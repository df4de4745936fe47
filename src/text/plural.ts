/**
 * Counted nouns for human text: "1 problem", "3 problems". One helper so no
 * message falls back to "problem(s)" or says "1 problems" because a count
 * that is usually large happened to be 1.
 */

/** The noun alone, in the form the count needs (`many` for irregular plurals: "process" → "processes"). */
export function noun(count: number, one: string, many = `${one}s`): string {
	return count === 1 ? one : many;
}

/** The count and its noun: `plural(1, "job")` is "1 job", `plural(0, "job")` is "0 jobs". */
export function plural(count: number, one: string, many = `${one}s`): string {
	return `${count} ${noun(count, one, many)}`;
}
