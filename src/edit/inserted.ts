/**
 * The text is the source with one run of characters inserted somewhere, and
 * nothing else changed: how an edit that adds a key proves it kept every
 * other byte. An insertion that left no characters is none.
 */
export function onlyInserted(source: string, text: string): boolean {
	if (text.length <= source.length) return false;
	let common = 0;
	while (common < source.length && source[common] === text[common]) common++;
	return text.slice(common + text.length - source.length) === source.slice(common);
}
