import type * as v from "valibot";
import type { VerbContext } from "../../contract/context.ts";
import { fail, ok, type Result } from "../../contract/envelope.ts";
import { ref } from "../../contract/refer.ts";
import { MANUAL } from "../../pages/manual.generated.ts";
import { findPage, normalizeTarget, type Page, pageFromMarkdown, searchPages } from "../../pages/reader.ts";
import { clip } from "../../text/clip.ts";
import { noun, plural } from "../../text/plural.ts";
import type { DocsData, DocsInput } from "./schema.ts";

let pages: Page[] | undefined;

/** The bundled manual as pages, parsed once per process. */
export function manualPages(): Page[] {
	pages ??= Object.entries(MANUAL).map(([target, content]) => pageFromMarkdown(target, content));
	return pages;
}

/** discern's own manual: the index, one page, or search results. Works outside any project. */
export async function docs(ctx: VerbContext, input: v.InferOutput<typeof DocsInput>): Promise<Result<"docs", DocsData>> {
	const { say } = ctx;
	const index = ref("docs");
	const all = manualPages();
	if (input.search !== undefined) {
		const within = input.target === undefined ? all : underTarget(all, input.target);
		if (input.target !== undefined && within.length === 0) {
			const lookup = findPage(all, input.target);
			const hints: [string, ...string[]] = !lookup.found && lookup.suggestion ? [`Did you mean \`${lookup.suggestion}\`?`] : [say`Run ${index} for the index.`];
			return fail("docs", "unknown_target", `No manual page or section \`${clip(input.target)}\` to search in.`, hints);
		}
		const matches = searchPages(within, input.search);
		const where = input.target === undefined ? "" : ` under \`${clip(normalizeTarget(input.target))}\``;
		return ok(
			"docs",
			`${plural(matches.length, "page")} ${noun(matches.length, "matches", "match")} "${clip(input.search)}"${where}.`,
			{ mode: "search", query: clip(input.search), matches },
			matches.length === 0 ? { hints: [say`Try fewer or other words, or ${index} for the index.`] } : {},
		);
	}
	if (input.target !== undefined) {
		const lookup = findPage(all, input.target);
		if (!lookup.found) {
			const hints: [string, ...string[]] = lookup.suggestion
				? [say`Did you mean ${ref("docs", { target: lookup.suggestion })}?`, say`Run ${index} for the index.`]
				: [say`Run ${index} for the index, or ${ref("docs", { search: "WORDS" })}.`];
			return fail("docs", "unknown_target", `No manual page \`${clip(input.target)}\`.`, hints);
		}
		const { page } = lookup;
		return ok("docs", page.summary || page.title, { mode: "page", target: page.target, title: page.title, content: page.content });
	}
	return ok("docs", say`${all.length} manual pages; read one with ${ref("docs", { target: "TARGET" })}.`, {
		mode: "index",
		pages: all.map(({ target, title, summary }) => ({ target, title, summary })),
	});
}

function underTarget(all: readonly Page[], raw: string): Page[] {
	const prefix = normalizeTarget(raw);
	return all.filter((page) => page.target === prefix || page.target.startsWith(`${prefix}/`));
}
