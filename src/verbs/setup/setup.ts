import type * as v from "valibot";
import type { RunningBinary } from "../../agents/command.ts";
import { refresh } from "../../agents/refresh.ts";
import { CONFIG_FILE, parseConfig } from "../../config/load.ts";
import type { VerbContext } from "../../contract/context.ts";
import { asVerb, fail, ok, type PlanItem, type Result } from "../../contract/envelope.ts";
import { ref } from "../../contract/refer.ts";
import { MAP_README } from "../../pages/map-skeleton.ts";
import { resolveInside, WriteDeniedError, writeFileAtomic } from "../../platform/files.ts";
import { appendIgnores, IGNORE_FILE, ignoreFileState } from "../../setup/ignores.ts";
import { applyFolds } from "../../setup/instructions.ts";
import { describeFolds, propose } from "./propose.ts";
import type { SetupData, SetupInput } from "./schema.ts";

/**
 * Adopt discern: detect the stack, propose jobs, and only with `--confirmed`
 * write what is missing: discern.toml, the map skeleton, and the root
 * .gitignore lines for the folders the jobs write. Never overwrites the
 * first two, and only appends to .gitignore; with discern.toml already
 * there, it writes only the others.
 */
export async function setup(ctx: VerbContext, input: v.InferOutput<typeof SetupInput>, running?: RunningBinary): Promise<Result<"setup", SetupData>> {
	const { say } = ctx;
	const confirmed = ref("setup", { confirmed: true });
	const proposed = await propose(ctx, input.agents);
	if (!proposed.ok) return asVerb("setup", proposed.refusal);
	const { data, found, root, configText, folds, ignoreLines } = proposed;
	// What setup writes must read back as exactly what it proposes: a repository's names end up in it (folders, packages,
	// scripts), and one that broke out of its quotes or comment would add a job of its own, or a file that does not parse.
	const misread = data.config_exists ? null : readsBackAs(configText, data);
	if (misread)
		return fail("setup", "internal_error", `The proposed ${CONFIG_FILE} does not read back as proposed (${misread}); nothing was written.`, [
			"This is discern's bug: please report it with the repository's folder and package names.",
		]);
	const writing = data.files.filter((file) => file.action === "create" || file.action === "append").map((file) => file.path);
	// The files setup makes whole; the .gitignore lines are told apart (a file of the person's, added to).
	const creating = writing.filter((path) => path !== IGNORE_FILE);
	const kept = data.config_exists ? ` ${CONFIG_FILE} exists and is left alone.` : "";
	if (writing.length === 0) {
		const present = data.files.map((file) => file.path);
		const notes = data.files.flatMap((file) => (file.reason ? [` ${file.reason}`] : [])).join("");
		const listed = present.length > 1 ? `${present.slice(0, -1).join(", ")} and ${present.at(-1)}` : present.join("");
		return ok("setup", `Nothing to write: ${listed} ${present.length === 1 ? "exists" : "exist"}.${notes}`, data, {
			hints: [say`Run ${ref("setup verify")} to check the configuration and compare it with what setup would propose.`],
		});
	}
	const plan: PlanItem[] = data.files.map((file) => ({
		kind: file.action === "move" || file.action === "remove" || file.action === "append" ? file.action : "write",
		label: file.action === "move" ? `${file.from} → ${file.path}` : file.path,
		disposition: file.action === "keep" ? "skip" : "run",
		...(file.reason ? { note: file.reason } : file.action === "keep" ? { note: "exists; left alone" } : {}),
	}));
	if (!input.confirmed || input.dry_run) {
		const files = data.config_exists ? creating : [CONFIG_FILE];
		const would = [...(files.length > 0 ? [`write ${files.join(" and ")}`] : []), ...(ignoreLines.length > 0 ? [`add ${linesToIgnore(ignoreLines)}`] : [])];
		const preview = ok("setup", `Would ${would.join(" and ")}.${kept} ${found}`, data, {
			dry_run: true,
			plan,
			hints: [say`Review the proposal, then run ${confirmed} to write it.`],
		});
		// On an interactive terminal a yes is the consent --confirmed gives; anywhere else, the preview is the answer.
		if (input.dry_run || !ctx.confirm) return preview;
		const question = [
			...(creating.length > 0 ? [`Write ${creating.join(" and ")}`] : []),
			...(ignoreLines.length > 0 ? [`${creating.length > 0 ? "add" : "Add"} ${linesToIgnore(ignoreLines)}`] : []),
		].join(", and ");
		if (!(await ctx.confirm(`${question}?`, preview))) {
			return ok("setup", `Nothing written. ${found}`, data, { dry_run: true, plan, hints: [say`Run ${confirmed} when you want it written.`] });
		}
	}
	try {
		// Check every target first, so a refusal leaves nothing half-written (the .gitignore appended to included: it may have changed since the proposal).
		await Promise.all([...writing, ...folds.filter((fold) => fold.action === "move").map((fold) => fold.to)].map((path) => resolveInside(root, path)));
		if (ignoreLines.length > 0 && (await ignoreFileState(root)) === "other")
			throw new WriteDeniedError(`${IGNORE_FILE} is not a regular file of at most 1 MiB, so setup does not add to it`);
		// discern.toml last: it is what marks the repository as set up.
		if (proposed.mapPath !== null && creating.includes(proposed.mapPath)) await writeFileAtomic(root, proposed.mapPath, MAP_README);
		// The person's own instruction files move before refresh generates those paths.
		await applyFolds(root, folds);
		await appendIgnores(root, ignoreLines);
		if (creating.includes(CONFIG_FILE)) await writeFileAtomic(root, CONFIG_FILE, configText);
	} catch (error) {
		if (error instanceof WriteDeniedError) {
			return fail(
				"setup",
				"write_denied",
				error.message,
				["Move what is in the way (a symlink, a file where a folder belongs), then run setup again; or write the files by hand from the proposal."],
				{ data },
			);
		}
		throw error;
	}
	const privateNotes = data.files.filter((file) => file.action === "keep" && file.reason).map((file) => ` ${file.reason}`);
	const added = ignoreLines.length > 0 ? `Added ${linesToIgnore(ignoreLines)} (${ignoreLines.join(" ")}).` : "";
	const wrote =
		[creating.length > 0 ? `Wrote ${creating.join(" and ")}.` : "", added].filter((part) => part !== "").join(" ") +
		`${kept}${describeFolds(folds)}${privateNotes.join("")}`;
	const review = data.config_exists
		? say`Run ${ref("setup verify")} to check discern.toml and compare it with what setup would propose.`
		: ignoreLines.length > 0
			? say`Review discern.toml and .gitignore, commit them on the trunk as the adoption commit (${ref("status")} prints it), then run ${ref("doctor")}.`
			: say`Review discern.toml, commit it on the trunk as the adoption commit (${ref("status")} prints it), then run ${ref("doctor")}.`;
	if (!running || proposed.agents.length === 0 || data.config_exists) return ok("setup", `${wrote} ${found}`, { ...data, written: true }, { hints: [review] });
	// With agents: wire them now, as `refresh` does (it also tells which command agents start and why).
	const wired = await refresh(ctx, {}, running);
	if (!wired.ok)
		return ok("setup", `${wrote} ${found} The agents are not wired yet: ${wired.message}`, { ...data, written: true }, { hints: [...wired.hints, review] });
	return ok(
		"setup",
		`${wrote} ${wired.message} ${found}`,
		{ ...data, written: true },
		{
			hints: [
				...(wired.hints ?? []),
				say`Review discern.toml and the agent files, commit them on the trunk as the adoption commit (${ref("status")} prints it), then run ${ref("doctor")}.`,
			],
		},
	);
}

/** `2 lines to .gitignore` */
function linesToIgnore(lines: readonly string[]): string {
	return `${lines.length === 1 ? "1 line" : `${lines.length} lines`} to ${IGNORE_FILE}`;
}

/** Why `text` does not read back as the jobs, scopes and installs `data` proposes; null when it does. */
function readsBackAs(text: string, data: SetupData): string | null {
	const parsed = parseConfig(text);
	if (!parsed.ok) return parsed.issues[0]?.message ?? "it is not a valid config";
	const { jobs, scopes, worktree } = parsed.config;
	const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((item, index) => item === b[index]);
	if (
		!same(
			Object.keys(jobs),
			data.jobs.map((job) => job.name),
		)
	)
		return "its jobs differ from the proposal's";
	if (
		!same(
			Object.keys(scopes),
			data.scopes.map((scope) => scope.name),
		)
	)
		return "its scopes differ from the proposal's";
	if (
		!same(
			worktree.setup.ensure,
			data.installs.map((install) => install.run),
		) ||
		!same(
			worktree.seed,
			data.seeds.map((seed) => seed.path),
		)
	)
		return "its worktree setup differs from the proposal's";
	return null;
}
