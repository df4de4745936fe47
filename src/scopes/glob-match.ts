/**
 * Matching for the scope glob dialect (`glob.ts` says what it means), in
 * time linear in path length × pattern length, whatever either holds.
 *
 * A RegExp cannot promise that: the dialect compiled to one backtracked on
 * repeated `**\/` (16 of them against a 20-deep path took ~50 s). Here a path
 * is matched segment by segment against the pattern's segment tokens as a
 * set of NFA states: every (path segment, pattern segment) pair is tested
 * at most once per path. Within a segment, the `*`s cut the pattern into
 * fixed-length chunks, and placing each middle chunk at its leftmost fit is
 * always right, so one left-to-right scan decides.
 *
 * Bun.Glob agrees with this dialect once patterns are rewritten (anchoring,
 * the plain-name rule) and is fast on every case tried, but documents no
 * bound on its matching time; the scope index also needs the per-segment
 * pieces, so the matcher is ours (tests hold it to Bun.Glob and to a
 * RegExp reference).
 */

/** Tests one path segment (no `/` inside). */
export type SegmentTest = (segment: string) => boolean;
/** Tests a whole path, given as its segments. */
export type SegmentsTest = (segments: readonly string[]) => boolean;

/** One character of a chunk: a UTF-16 code unit, any character (`?`), or a class. */
type CharTest = number | "any" | CharClass;

interface CharClass {
	negated: boolean;
	/** Inclusive code-unit ranges, flattened: lo, hi, lo, hi, … */
	ranges: number[];
}

/** A segment pattern: fixed-length chunks with a `*` between each two. */
interface SegmentPattern {
	chunks: CharTest[][];
}

/**
 * Parse one segment of a brace-free pattern. Returns a problem sentence for
 * a reversed range (`[z-a]`). Unbalanced brackets are caught earlier, by
 * brace expansion.
 */
export function parseSegment(segment: string): SegmentPattern | string {
	const chunks: CharTest[][] = [[]];
	for (let index = 0; index < segment.length; index++) {
		const char = segment[index] ?? "";
		const chunk = chunks[chunks.length - 1] ?? [];
		if (char === "*") {
			while (segment[index + 1] === "*") index++;
			chunks.push([]);
		} else if (char === "?") {
			chunk.push("any");
		} else if (char === "[") {
			const end = classEnd(segment, index);
			if (end < 0) return "it has a `[` without a matching `]`";
			const parsed = parseClass(segment.slice(index + 1, end));
			if (typeof parsed === "string") return parsed;
			chunk.push(parsed);
			index = end;
		} else {
			chunk.push(segment.charCodeAt(index));
		}
	}
	return { chunks };
}

/** Index of the `]` closing the class opened at `start`, or -1. A `]` right after `[` or `[!` is a member. */
export function classEnd(pattern: string, start: number): number {
	let index = start + 1;
	if (pattern[index] === "!" || pattern[index] === "^") index++;
	if (pattern[index] === "]") index++;
	return pattern.indexOf("]", index);
}

/** `a-z` is a range, a `-` first or last is itself; as in a RegExp class. */
function parseClass(body: string): CharClass | string {
	const negated = body.startsWith("!") || body.startsWith("^");
	const members = negated ? body.slice(1) : body;
	const ranges: number[] = [];
	for (let index = 0; index < members.length; index++) {
		const low = members.charCodeAt(index);
		if (members[index + 1] === "-" && index + 2 < members.length) {
			const high = members.charCodeAt(index + 2);
			if (low > high) return "it has an invalid character range in `[…]` (a range must go from low to high, like `[a-z]`)";
			ranges.push(low, high);
			index += 2;
		} else {
			ranges.push(low, low);
		}
	}
	return { negated, ranges };
}

/** Compile one segment pattern; throws on an invalid one (validate with `parseSegment` first). */
export function compileSegment(segment: string): SegmentTest {
	const parsed = parseSegment(segment);
	if (typeof parsed === "string") throw new Error(`invalid glob segment \`${segment}\`: ${parsed}`);
	const { chunks } = parsed;
	const literals = chunks.map(literalOf);
	const [first = [], ...rest] = chunks;
	const firstLiteral = literals[0];
	if (rest.length === 0) {
		// No `*`: the whole segment, character by character.
		if (firstLiteral !== undefined) return (name) => name === firstLiteral;
		return (name) => name.length === first.length && fitsAt(first, name, 0);
	}
	const last = rest.pop() ?? [];
	const lastLiteral = literals[literals.length - 1];
	if (rest.length === 0 && firstLiteral !== undefined && lastLiteral !== undefined) {
		// `*`, `*.ts`, `x*`, `x*.ts`: the commonest shapes are two string comparisons.
		const least = firstLiteral.length + lastLiteral.length;
		return (name) => name.length >= least && name.startsWith(firstLiteral) && name.endsWith(lastLiteral);
	}
	const least = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
	return (name) => {
		if (name.length < least || !fitsAt(first, name, 0)) return false;
		const end = name.length - last.length;
		if (!fitsAt(last, name, end)) return false;
		let position = first.length;
		for (const chunk of rest) {
			const found = leftmostFit(chunk, name, position, end);
			if (found < 0) return false;
			position = found + chunk.length;
		}
		return true;
	};
}

/** The chunk as a plain string when it holds only literal characters. */
function literalOf(chunk: readonly CharTest[]): string | undefined {
	let text = "";
	for (const test of chunk) {
		if (typeof test !== "number") return undefined;
		text += String.fromCharCode(test);
	}
	return text;
}

function fitsAt(chunk: readonly CharTest[], name: string, at: number): boolean {
	for (let offset = 0; offset < chunk.length; offset++) {
		const test = chunk[offset];
		if (test === undefined || !charMatches(test, name.charCodeAt(at + offset))) return false;
	}
	return true;
}

/** The first position in [from, end - chunk length] where the chunk fits, or -1. */
function leftmostFit(chunk: readonly CharTest[], name: string, from: number, end: number): number {
	for (let at = from; at + chunk.length <= end; at++) if (fitsAt(chunk, name, at)) return at;
	return -1;
}

function charMatches(test: CharTest, code: number): boolean {
	if (typeof test === "number") return test === code;
	if (test === "any") return true;
	let inside = false;
	for (let index = 0; index < test.ranges.length; index += 2) {
		if (code >= (test.ranges[index] ?? 0) && code <= (test.ranges[index + 1] ?? -1)) {
			inside = true;
			break;
		}
	}
	return inside !== test.negated;
}

/** Zero or more whole path segments. */
const GLOBSTAR = "**";
type Token = SegmentTest | typeof GLOBSTAR;

const anySegment: SegmentTest = () => true;

/**
 * Compile one brace-free alternative into a test over a path's segments.
 * Throws on an invalid pattern (validate with `globProblem` first).
 */
export function compilePath(alternative: string): SegmentsTest {
	const tokens = pathTokens(alternative);
	const size = tokens.length;
	// The state sets, reused by every call: matching is synchronous.
	let current = new Uint8Array(size + 1);
	let next = new Uint8Array(size + 1);
	// A `**` may match no segment: its state also stands in the next one.
	const close = (states: Uint8Array) => {
		for (let index = 0; index < size; index++) if (states[index] && tokens[index] === GLOBSTAR) states[index + 1] = 1;
	};
	// Cheap rejections first: most paths fail on their length or their basename.
	const fixed = tokens.filter((token) => token !== GLOBSTAR).length;
	const spans = tokens.includes(GLOBSTAR);
	const lastToken = tokens[size - 1];
	const lastTest = lastToken !== GLOBSTAR && lastToken !== anySegment ? lastToken : undefined;
	return (segments) => {
		if (spans ? segments.length < fixed : segments.length !== fixed) return false;
		if (lastTest && !lastTest(segments[segments.length - 1] ?? "")) return false;
		current.fill(0);
		current[0] = 1;
		close(current);
		for (const segment of segments) {
			next.fill(0);
			let alive = false;
			for (let index = 0; index < size; index++) {
				if (!current[index]) continue;
				const token = tokens[index];
				if (token === GLOBSTAR) {
					next[index] = 1;
					alive = true;
				} else if (token?.(segment)) {
					next[index + 1] = 1;
					alive = true;
				}
			}
			if (!alive) return false;
			close(next);
			[current, next] = [next, current];
		}
		return current[size] === 1;
	};
}

/**
 * The dialect as segment tokens: a pattern without a `/` gets a leading
 * `**` (any depth), a trailing `**` means at least one segment beneath, and
 * a plain last segment also covers what is beneath it.
 */
function pathTokens(alternative: string): Token[] {
	let body = alternative.startsWith("/") ? alternative.slice(1) : alternative;
	if (body.endsWith("/")) body += "**";
	const anchored = alternative.startsWith("/") || body.includes("/");
	const segments = body.split("/");
	const tokens: Token[] = anchored ? [] : [GLOBSTAR];
	const push = (token: Token) => {
		// `**/**` is `**`: fewer states, same language.
		if (token === GLOBSTAR && tokens[tokens.length - 1] === GLOBSTAR) return;
		tokens.push(token);
	};
	segments.forEach((segment, index) => {
		const last = index === segments.length - 1;
		if (segment === GLOBSTAR) {
			if (last) push(anySegment);
			push(GLOBSTAR);
			return;
		}
		push(compileSegment(segment));
		if (last && !/[*?[]/.test(segment)) push(GLOBSTAR);
	});
	return tokens;
}
