import type * as v from "valibot";
import { openProject } from "../../config/open-project.ts";
import type { VerbContext } from "../../contract/context.ts";
import { asVerb, fail, ok, type Result } from "../../contract/envelope.ts";
import { ref } from "../../contract/refer.ts";
import { changedPaths, NO_TRUNK_REASON } from "../../scopes/changed.ts";
import { classify } from "../../scopes/classify.ts";
import { compileScopes } from "../../scopes/glob.ts";
import { clip, clipList } from "../../text/clip.ts";
import { noun, plural } from "../../text/plural.ts";
import { nearest } from "../../text/suggest.ts";
import { resolveTrunk } from "../../trunk/resolve.ts";
import { CODE_MARKER, type ImpactData, type ImpactInput, MAX_LISTED_PATHS } from "./schema.ts";

/** Which configured scopes the branch and the working tree touch. Read-only. */
export async function impact(ctx: VerbContext, input: v.InferOutput<typeof ImpactInput>): Promise<Result<"impact", ImpactData>> {
	const opened = await openProject(ctx);
	if (!opened.ok) return asVerb("impact", opened.refusal);
	const { repository, config } = opened;
	const names = Object.keys(config.scopes);

	// `code` always means the marker, even if a scope is named so: the same
	// word in `data.scopes` must not mean two things.
	const has = input.has;
	if (has !== undefined && has !== CODE_MARKER && !names.includes(has)) {
		const suggestion = nearest(has, [...names, CODE_MARKER]);
		const declared = names.length > 0 ? clipList(names.map((name) => `\`${clip(name)}\``)) : "none";
		return fail(
			"impact",
			"invalid_arguments",
			`\`has\` names scope \`${clip(has)}\`, which is not declared under [scopes]${suggestion ? `; did you mean \`${clip(suggestion)}\`?` : "."}`,
			[
				`Declared scopes: ${declared}; \`${CODE_MARKER}\` asks whether any non-neutral path changed.`,
				ctx.say`Run ${ref("impact")} to see every touched scope.`,
			],
		);
	}

	const { trunk } = await resolveTrunk(repository.root, config.repository.trunk, ctx.env.DISCERN_TRUNK, { location: repository });
	const changes = await changedPaths(repository.root, trunk.exists && trunk.name ? `refs/heads/${trunk.name}` : null, { signal: ctx.signal });
	// Say which trunk is missing rather than the generic "no trunk is known".
	const reason =
		trunk.name && !trunk.exists && changes.reason
			? changes.reason.replace(
					NO_TRUNK_REASON,
					`the trunk \`${clip(trunk.name)}\` does not exist locally, so committed changes on this branch cannot be listed`,
				)
			: changes.reason;
	const classification = classify(changes.paths, compileScopes(config.scopes), changes.complete, changes.submodules);

	const data: ImpactData = {
		scopes: classification.code ? [...classification.touched, CODE_MARKER] : classification.touched,
		changed: changes.paths.length,
		paths: changes.paths.slice(0, MAX_LISTED_PATHS),
		truncated: changes.paths.length > MAX_LISTED_PATHS,
		complete: changes.complete,
		...(reason !== undefined ? { reason } : {}),
		per_scope: Object.entries(config.scopes).map(([scope, declared]) => ({
			scope,
			paths: classification.counts[scope] ?? 0,
			neutral: declared.neutral,
			// An empty command or `:` is skipped, as for jobs.
			gate: declared.gate !== undefined && !["", ":"].includes(declared.gate.trim()),
		})),
	};
	const extras = changes.complete
		? {}
		: {
				hints: [
					ctx.say`Every scope counts as touched because git could not list every change. For a precise answer, check the trunk (${ref("status")} shows it; DISCERN_TRUNK or [repository].trunk set it) and that the branch has a commit.`,
				],
			};

	if (has !== undefined) {
		const membership = has === CODE_MARKER ? classification.code : classification.touched.includes(has);
		data.membership = membership;
		const what = has === CODE_MARKER ? "Code (a path outside every neutral scope)" : `Scope \`${clip(has)}\``;
		return ok(
			"impact",
			`${what} is ${membership ? "" : "not "}touched${changes.complete ? "" : " (failed open: the change list is incomplete)"}.`,
			data,
			extras,
		);
	}
	return ok("impact", summarize(data, classification.code, trunk.name), data, extras);
}

function summarize(data: ImpactData, code: boolean, trunk: string | null): string {
	const against = trunk ? ` against \`${clip(trunk)}\`` : "";
	if (!data.complete) return `git could not list every change (${data.reason ?? "unknown reason"}), so every scope counts as touched.`;
	if (data.changed === 0) return `No changes${against}: no scope is touched.`;
	const scopes = data.scopes.filter((_, index) => !(code && index === data.scopes.length - 1));
	const touched = scopes.length > 0 ? `${noun(scopes.length, "scope")} ${scopes.join(", ")}` : "no scope";
	return `${plural(data.changed, "changed path")}${against}: ${touched}; ${code ? "code changed" : "no code outside neutral scopes"}.`;
}
