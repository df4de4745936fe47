import { plural } from "./plural.ts";

/** Values echoed back in messages, hints and details keep at most this many characters. */
export const ECHO_LIMIT = 200;

/**
 * A value as discern may echo it back: its head, and how much was cut.
 * Anything a person or an agent typed (a path, a flag, a key, a target) or
 * that came from a file is shown through this, so a 3 MB argument cannot
 * come back as megabytes — once per message, hint and text rendering.
 */
export function clip(value: string, limit = ECHO_LIMIT): string {
	if (value.length <= limit) return value;
	let head = value.slice(0, limit);
	// Never split a surrogate pair: half a character is not valid text.
	const last = head.charCodeAt(head.length - 1);
	if (last >= 0xd800 && last <= 0xdbff) head = head.slice(0, -1);
	return `${head}… (${plural(value.length - head.length, "more character")})`;
}

/** Items listed in a message or hint: the first `max`, then how many more. */
export function clipList(items: readonly string[], max = 20): string {
	if (items.length <= max) return items.join(", ");
	return `${items.slice(0, max).join(", ")} and ${items.length - max} more`;
}
