/** git's first line of complaint, without its closing period (the sentence it goes in has its own). */
export function firstLine(text: string): string {
	return (text.trim().split("\n")[0] ?? "").replace(/[.\s]+$/, "");
}
