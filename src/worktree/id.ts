import { randomBytes } from "node:crypto";

/**
 * A worktree's id: what names its branch, its folder, its port and its
 * resources. Built only from `[a-z0-9-]`, so it is safe in a branch name,
 * a path segment and (with `-` → `_`) a database name, and can be pasted
 * into a declared shell command without quoting.
 */

/** Characters of the slug part, before the tail. */
export const SLUG_MAX = 40;
/** The first port a worktree can get, and how many there are. */
export const PORT_BASE = 17290;
export const PORT_SPAN = 2000;

const ADJECTIVES = [
	"amber",
	"brisk",
	"calm",
	"deft",
	"eager",
	"fair",
	"gentle",
	"hardy",
	"keen",
	"lucid",
	"mellow",
	"nimble",
	"plain",
	"quiet",
	"rapid",
	"steady",
	"tidy",
	"vivid",
	"warm",
	"young",
] as const;
const NOUNS = [
	"acorn",
	"badger",
	"cedar",
	"delta",
	"ember",
	"falcon",
	"glade",
	"harbor",
	"island",
	"juniper",
	"kestrel",
	"lantern",
	"meadow",
	"otter",
	"pebble",
	"quarry",
	"river",
	"spruce",
	"thistle",
	"willow",
] as const;

/** Six hex characters of randomness (injectable, so tests can force a collision). */
export type TailSource = () => string;
export const randomTail: TailSource = () => randomBytes(3).toString("hex");

/** `[a-z0-9-]`, dashes collapsed and trimmed, at most `max` characters; "" when nothing is left. */
export function slugify(text: string, max = SLUG_MAX): string {
	const slug = text
		.normalize("NFKD")
		// Accents come apart into a letter and combining marks: the marks go, the letter stays (Ü → u, not u-).
		.replace(/\p{M}+/gu, "")
		.toLowerCase()
		.replace(/[^a-z0-9]+/g, "-")
		.replace(/^-+|-+$/g, "");
	return slug.slice(0, max).replace(/-+$/, "");
}

export function worktreeId(input: { name?: string | undefined; title?: string | undefined }, tail: TailSource = randomTail): string {
	const named = slugify(input.name ?? "") || slugify(input.title ?? "");
	const end = tail();
	if (!/^[0-9a-f]{6}$/.test(end)) throw new Error(`a worktree id tail must be 6 hex characters, not ${JSON.stringify(end)}`);
	return `${named || randomPair()}-${end}`;
}

function randomPair(): string {
	const [a = 0, b = 0] = randomBytes(2);
	return `${ADJECTIVES[a % ADJECTIVES.length]}-${NOUNS[b % NOUNS.length]}`;
}

/** Is this a well-formed id (what other verbs accept as `ID`)? */
export function isWorktreeId(text: string): boolean {
	return /^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(text) && text.length <= SLUG_MAX + 7;
}

/** FNV-1a (32-bit): stable across runs, machines and runtimes, unlike a seeded hash. */
export function fnv1a(text: string): number {
	let hash = 0x811c9dc5;
	for (const byte of new TextEncoder().encode(text)) {
		hash ^= byte;
		hash = Math.imul(hash, 0x01000193) >>> 0;
	}
	return hash >>> 0;
}

/** The worktree's own port: the same id always gets the same port. */
export function worktreePort(id: string): number {
	return PORT_BASE + (fnv1a(id) % PORT_SPAN);
}
