import { nearest } from "../text/suggest.ts";

/**
 * A tree of markdown pages addressed by target (path without `.md`), as read
 * by `discern docs` over the bundled manual (and, later, by the map verb over
 * the project's own map).
 */
export interface Page {
	target: string;
	title: string;
	/** The first paragraph after the title. */
	summary: string;
	content: string;
}

export interface SearchMatch {
	target: string;
	title: string;
	score: number;
	snippet: string;
}

export function pageFromMarkdown(target: string, content: string): Page {
	const lines = content.split(/\r?\n/);
	const heading = lines.find((line) => line.startsWith("# "));
	const title = heading ? heading.slice(2).trim() : target;
	const afterTitle = heading ? lines.slice(lines.indexOf(heading) + 1) : lines;
	const paragraph: string[] = [];
	for (const line of afterTitle) {
		if (line.trim() === "") {
			if (paragraph.length > 0) break;
			continue;
		}
		if (line.startsWith("#")) break;
		paragraph.push(line.trim());
	}
	return { target, title, summary: paragraph.join(" "), content };
}

/** Accept the spellings people type: `config.md`, `/config`, `mcp/`, `docs/config.md`. */
export function normalizeTarget(raw: string): string {
	return raw
		.trim()
		.replace(/^\.?\/+/, "")
		.replace(/^docs\//, "")
		.replace(/\.md$/i, "")
		.replace(/\/+$/, "")
		.replace(/\/(index|README)$/i, "")
		.toLowerCase();
}

export type Lookup = { found: true; page: Page } | { found: false; suggestion?: string };

export function findPage(pages: readonly Page[], raw: string): Lookup {
	const target = normalizeTarget(raw);
	const page = pages.find((candidate) => candidate.target.toLowerCase() === target);
	if (page) return { found: true, page };
	const suggestion = nearest(
		target,
		pages.map((candidate) => candidate.target),
	);
	return suggestion ? { found: false, suggestion } : { found: false };
}

/** A query's words beyond this many are ignored. */
const MAX_QUERY_WORDS = 32;

/**
 * Rank pages by how often and where the query's words occur: a title hit
 * weighs most, then headings, then body text. Deterministic, no index.
 */
export function searchPages(pages: readonly Page[], query: string, limit = 10): SearchMatch[] {
	// Each word costs a pass over every page: distinct words only, and no more than a person types.
	const words = [
		...new Set(
			query
				.toLowerCase()
				.split(/\s+/)
				.filter((word) => word.length > 0),
		),
	].slice(0, MAX_QUERY_WORDS);
	if (words.length === 0) return [];
	const matches: SearchMatch[] = [];
	for (const page of pages) {
		const title = page.title.toLowerCase();
		const body = page.content.toLowerCase();
		const headings = page.content
			.split("\n")
			.filter((line) => line.startsWith("#"))
			.join("\n")
			.toLowerCase();
		let score = 0;
		let everyWord = true;
		for (const word of words) {
			const inBody = occurrences(body, word);
			if (inBody === 0 && !title.includes(word)) everyWord = false;
			score += (title.includes(word) ? 10 : 0) + occurrences(headings, word) * 3 + Math.min(inBody, 20);
		}
		if (score === 0) continue;
		if (everyWord && words.length > 1) score *= 2;
		matches.push({ target: page.target, title: page.title, score, snippet: snippetAround(page.content, words) });
	}
	return matches.sort((a, b) => b.score - a.score || a.target.localeCompare(b.target)).slice(0, limit);
}

function occurrences(text: string, word: string): number {
	let count = 0;
	for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + word.length)) count++;
	return count;
}

/** The line holding the first hit, trimmed to a readable length. */
function snippetAround(content: string, words: readonly string[]): string {
	const lines = content.split("\n").filter((line) => line.trim() !== "" && !line.startsWith("# "));
	const hit = lines.find((line) => words.some((word) => line.toLowerCase().includes(word))) ?? lines[0] ?? "";
	const text = hit.trim();
	if (text.length <= 200) return text;
	const lower = text.toLowerCase();
	const at = Math.max(0, Math.min(...words.map((word) => lower.indexOf(word)).filter((index) => index >= 0)) - 60);
	return `${at > 0 ? "…" : ""}${text.slice(at, at + 200)}…`;
}
