/** The candidate closest to `input` by edit distance, if it is close enough to be a likely typo. */
export function nearest(input: string, candidates: Iterable<string>): string | undefined {
	const list = [...candidates];
	// A truncated name ("claude" for "claude_code") is a likelier intent than any edit-distance match.
	const lowered = input.toLowerCase();
	if (lowered.length >= 3) {
		const extended = list.find((candidate) => candidate.toLowerCase().startsWith(lowered));
		if (extended) return extended;
	}
	let best: string | undefined;
	const tolerance = Math.max(2, Math.floor(input.length / 3));
	let bestDistance = tolerance + 1;
	for (const candidate of list) {
		// The length difference is a floor under the distance: skip candidates that cannot win
		// (without it, a megabyte of input costs megabytes × candidate length per candidate).
		if (Math.abs(input.length - candidate.length) >= bestDistance) continue;
		const distance = editDistance(lowered, candidate.toLowerCase());
		if (distance < bestDistance) {
			best = candidate;
			bestDistance = distance;
		}
	}
	return best;
}

function editDistance(a: string, b: string): number {
	let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
	for (let i = 1; i <= a.length; i++) {
		const current = [i];
		for (let j = 1; j <= b.length; j++) {
			const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
			current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
		}
		previous = current;
	}
	return previous[b.length] ?? 0;
}
