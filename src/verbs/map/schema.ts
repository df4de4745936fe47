import * as v from "valibot";

export const MapInput = v.strictObject({
	target: v.optional(v.pipe(v.string(), v.description("A page, e.g. `api` or `api/auth`. Omit for the regions."))),
	search: v.optional(v.pipe(v.string(), v.minLength(1), v.description("Words to search for (within TARGET when given)."))),
});

const Region = v.strictObject({
	name: v.string(),
	title: v.string(),
	description: v.string(),
	pages: v.number(),
	/** When a commit last changed the region's pages (ISO 8601), null when none did. */
	last_changed: v.nullable(v.string()),
	/** Repository paths outside the map that the region's pages link to. */
	linked_paths: v.number(),
	/** Commits since `last_changed` touching those paths: how far the code may have moved past the pages. Null when unknown. */
	commits_since: v.nullable(v.number()),
});
export type Region = v.InferOutput<typeof Region>;

export const MapData = v.variant("mode", [
	v.strictObject({ mode: v.literal("digest"), dir: v.string(), regions: v.array(Region) }),
	v.strictObject({ mode: v.literal("page"), target: v.string(), path: v.string(), title: v.string(), content: v.string() }),
	v.strictObject({
		mode: v.literal("search"),
		query: v.string(),
		matches: v.array(v.strictObject({ target: v.string(), title: v.string(), score: v.number(), snippet: v.string() })),
	}),
]);
export type MapData = v.InferOutput<typeof MapData>;
