import type * as v from "valibot";
import { openProject } from "../../config/open-project.ts";
import type { VerbContext } from "../../contract/context.ts";
import { asVerb, fail, ok, type Result } from "../../contract/envelope.ts";
import { ref } from "../../contract/refer.ts";
import {
	findPageFile,
	linkedPaths,
	MAX_PAGE_BYTES,
	type MapFolder,
	normalizeMapTarget,
	openMapFolder,
	type PageFile,
	pageReader,
	walkMap,
} from "../../pages/map-folder.ts";
import { type Page, pageFromMarkdown, searchPages } from "../../pages/reader.ts";
import { clip, clipList } from "../../text/clip.ts";
import { noun, plural } from "../../text/plural.ts";
import { nearest } from "../../text/suggest.ts";
import { freshness, pooled } from "./freshness.ts";
import type { MapData, MapInput, Region } from "./schema.ts";

type MapResult = Result<"map", MapData>;

/**
 * The project's map (`[map].dir`): the regions digest with freshness facts
 * from git, one page, or ranked search results. Read-only; pages come from
 * the working tree, and no target reaches outside the map folder.
 */
export async function map(ctx: VerbContext, input: v.InferOutput<typeof MapInput>): Promise<MapResult> {
	const { say } = ctx;
	const opened = await openProject(ctx);
	if (!opened.ok) return asVerb("map", opened.refusal);
	const root = opened.repository.root;
	const folder = await openMapFolder(root, opened.config.map.dir);
	if (folder.state === "outside") {
		return fail("map", "invalid_config", `[map].dir \`${clip(opened.config.map.dir)}\` leads outside the repository.`, [
			"Set [map].dir to a folder inside the repository (the default is `docs/map/`).",
		]);
	}
	if (folder.state === "missing") {
		if (input.target === undefined && input.search === undefined) {
			return ok(
				"map",
				`No map folder at \`${clip(folder.dir)}\` yet.`,
				{ mode: "digest", dir: folder.dir, regions: [] },
				{
					hints: [say`Create \`${clip(folder.dir)}README.md\` and one folder per region of the code; ${ref("docs", { target: "map" })} explains the layout.`],
				},
			);
		}
		const what = input.target === undefined ? "nothing to search" : `no page \`${clip(input.target)}\``;
		return fail("map", "unknown_target", `There is no map folder at \`${clip(folder.dir)}\`, so ${what}.`, [
			say`Run ${ref("map")} to see where the map belongs.`,
		]);
	}
	const pages = await walkMap(folder.folder);
	if (input.search !== undefined) return search(ctx, folder.folder, pages, input.search, input.target);
	if (input.target !== undefined) return page(ctx, folder.folder, pages, input.target);
	const regions = await digest(root, folder.folder, pages, ctx.signal);
	const stale = regions.filter((region) => (region.commits_since ?? 0) > 0).length;
	const staleNote = stale > 0 ? `; in ${stale} of them, code the pages link to changed after the pages did` : "";
	return ok(
		"map",
		`${plural(regions.length, "region")} in \`${clip(folder.folder.dir)}\`${staleNote}.`,
		{ mode: "digest", dir: folder.folder.dir, regions },
		{
			hints: [say`Read a region or page with ${ref("map", { target: "TARGET" })}, or search with ${ref("map", { search: "WORDS" })}.`],
		},
	);
}

/** Each top-level folder (not `_internal`) with its README's title and summary, its page count and its freshness. */
async function digest(root: string, folder: MapFolder, pages: readonly PageFile[], signal: AbortSignal): Promise<Region[]> {
	const names = [...new Set(pages.flatMap((page) => (page.region === null || page.region.startsWith("_") ? [] : [page.region])))];
	const read = pageReader();
	return pooled(names, async (name) => {
		const own = pages.filter((page) => page.region === name);
		const linked = new Set<string>();
		let title = name;
		let description = "";
		for (const file of own) {
			const text = await read(file);
			if (!text) continue;
			if (file.target === name) ({ title, summary: description } = pageFromMarkdown(name, text.content));
			for (const path of linkedPaths(text.content, `${folder.dir}${file.rel}`, folder.dir)) linked.add(path);
		}
		const facts = await freshness(root, `${folder.dir}${name}`, [...linked].sort(), signal);
		return { name, title: clip(title), description: clip(description, 500), pages: own.length, linked_paths: linked.size, ...facts };
	});
}

async function page(ctx: VerbContext, folder: MapFolder, pages: readonly PageFile[], raw: string): Promise<MapResult> {
	const target = normalizeMapTarget(raw, folder.dir);
	if (target === null) return outside(ctx, folder, raw);
	const file = findPageFile(pages, target);
	if (!file) return unknown(ctx, folder, pages, raw, target);
	const text = await pageReader()(file);
	if (!text) return unknown(ctx, folder, pages, raw, target);
	const { title, summary } = pageFromMarkdown(file.target, text.content);
	return ok(
		"map",
		clip(summary || title),
		{ mode: "page", target: file.target, path: `${folder.dir}${file.rel}`, title, content: text.content },
		text.truncated ? { hints: [`The page is larger than ${MAX_PAGE_BYTES / 1024} KiB: only its beginning is shown.`] } : {},
	);
}

async function search(ctx: VerbContext, folder: MapFolder, pages: readonly PageFile[], query: string, raw: string | undefined): Promise<MapResult> {
	const { say } = ctx;
	let within = pages;
	if (raw !== undefined) {
		const prefix = normalizeMapTarget(raw, folder.dir);
		if (prefix === null) return outside(ctx, folder, raw);
		within = prefix === "README" ? pages : pages.filter((page) => page.target === prefix || page.target.startsWith(`${prefix}/`));
		if (within.length === 0) return unknown(ctx, folder, pages, raw, prefix, "to search in");
	}
	const read = pageReader();
	const loaded: Page[] = [];
	for (const file of within) {
		const text = await read(file);
		if (text) loaded.push(pageFromMarkdown(file.target, text.content));
	}
	const matches = searchPages(loaded, query).map((match) => ({ ...match, title: clip(match.title) }));
	const where = raw === undefined ? "" : ` under \`${clip(raw)}\``;
	return ok(
		"map",
		`${plural(matches.length, "page")} ${noun(matches.length, "matches", "match")} "${clip(query)}"${where}.`,
		{ mode: "search", query: clip(query), matches },
		matches.length === 0 ? { hints: [say`Try fewer or other words, or ${ref("map")} for the regions.`] } : {},
	);
}

/** A target that could lead outside the map is no page of it: the same refusal as an unknown one. */
function outside(ctx: VerbContext, folder: MapFolder, raw: string): MapResult {
	const { say } = ctx;
	return fail(
		"map",
		"unknown_target",
		`\`${clip(raw)}\` is not a page of the map: a target is a path under \`${clip(folder.dir)}\`, without \`..\`, a leading \`/\` or a backslash.`,
		[say`Run ${ref("map")} for the regions.`],
	);
}

function unknown(ctx: VerbContext, folder: MapFolder, pages: readonly PageFile[], raw: string, target: string, purpose = ""): MapResult {
	const { say } = ctx;
	const inside = pages.filter((page) => page.target.startsWith(`${target}/`)).map((page) => page.target);
	const suggestion = nearest(
		target,
		pages.map((page) => page.target),
	);
	const hints: [string, ...string[]] =
		inside.length > 0
			? [
					`\`${clip(target)}\` is a folder without a README.md; its pages: ${clipList(
						inside.map((name) => `\`${clip(name)}\``),
						5,
					)}.`,
				]
			: suggestion
				? [say`Did you mean ${ref("map", { target: suggestion })}?`, say`Run ${ref("map")} for the regions.`]
				: [say`Run ${ref("map")} for the regions, or ${ref("map", { search: "WORDS" })}.`];
	return fail("map", "unknown_target", `No map page \`${clip(raw)}\` under \`${clip(folder.dir)}\`${purpose ? ` ${purpose}` : ""}.`, hints);
}
