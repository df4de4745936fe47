import { rm } from "node:fs/promises";
import { join } from "node:path";
import type * as v from "valibot";
import { planUnwiring, type UnwiringFile } from "../../agents/unwiring.ts";
import { blockingOf, committedText, planInstructions } from "../../agents/wiring.ts";
import { loadConfig } from "../../config/load.ts";
import { openRepository } from "../../config/open-project.ts";
import type { VerbContext } from "../../contract/context.ts";
import { asVerb, fail, ok, type PlanItem, type Result } from "../../contract/envelope.ts";
import { ref } from "../../contract/refer.ts";
import { removeEmptyFolders, resolveInside, WriteDeniedError, writeFileAtomic } from "../../platform/files.ts";
import { writeDenied } from "../../platform/write-denied.ts";
import { listStateFolder, stateFolder, statePath } from "../../state/dir.ts";
import { plural } from "../../text/plural.ts";
import { hasLinkedWorktrees, listWorktrees } from "../../worktree/git-worktrees.ts";
import { readTask } from "../../worktree/task.ts";
import type { UninstallData, UninstallInput } from "./schema.ts";
import { type Listed, planKept, planState, type StateEntry } from "./state.ts";
import { carryOutUnfold, planUnfolds, type Unfold } from "./unfold.ts";

type UninstallResult = Result<"uninstall", UninstallData>;

/**
 * `uninstall`: remove what discern generated or wired, from the provider
 * registry (src/agents/unwiring.ts is the inverse of refresh's plan), and
 * its runtime state under the git dir; keep discern.toml, the instruction
 * sources, the map, notes and refs. Refuses while linked worktrees or
 * resource ledgers exist: removing discern under running work would strand
 * it. Everything is planned (and any refusal found) before the first change.
 */
export async function uninstall(ctx: VerbContext, input: v.InferOutput<typeof UninstallInput>): Promise<UninstallResult> {
	const { say } = ctx;
	const opened = await openRepository(ctx);
	if (!opened.ok) return asVerb("uninstall", opened.refusal);
	const { repository } = opened;
	const { root, commonDir } = repository;
	const data: UninstallData = { files: [], worktrees: [], resources: [], removed: false };

	const listed = await listWorktrees(root, commonDir);
	const linked = listed ? listed.filter((worktree) => !worktree.main && !worktree.bare) : null;
	if (linked === null && (await hasLinkedWorktrees(commonDir))) {
		return fail(
			"uninstall",
			"active_worktrees",
			"Nothing was removed: git could not list the worktrees, and the repository has linked ones.",
			[say`Run ${ref("worktree list")} (or \`git worktree list\`) to see what is wrong.`],
			{ data },
		);
	}
	if (linked && linked.length > 0) {
		data.worktrees = linked.map((worktree) => ({ path: worktree.path, branch: worktree.branch }));
		const ids = await Promise.all(
			linked.map(async (worktree) => (worktree.gitDir ? (await readTask(worktree.gitDir))?.id : undefined) ?? worktree.branch ?? worktree.path),
		);
		const drops = ids.slice(0, 3).map((id) => say`${ref("worktree drop", { id })}`);
		return fail(
			"uninstall",
			"active_worktrees",
			`Nothing was removed: ${plural(linked.length, "linked worktree")} ${linked.length === 1 ? "exists" : "exist"}, and discern's wiring is what their agents run on.`,
			[
				say`Run ${ref("worktree list")} to see them; land the work with ${ref("accept")} or discard it: ${drops.join(", ")}${ids.length > 3 ? ", …" : ""}.`,
				"A worktree whose folder is gone is removed with `git worktree prune`.",
				say`Then run ${ref("uninstall")} again.`,
			],
			{ data },
		);
	}

	const resources = statePath(commonDir, "resources");
	const ledgers = listStateFolder(commonDir, ["resources"]).filter((name) => name.endsWith(".json"));
	if (ledgers.length > 0) {
		data.resources = ledgers.map((name) => join(resources, name));
		return fail(
			"uninstall",
			"provisioned_resources",
			`Nothing was removed: ${plural(ledgers.length, "resource ledger")} ${ledgers.length === 1 ? "records" : "record"} resources a worktree created (databases, ports …) that may still exist.`,
			[
				"Each ledger lists what was created and the command that destroys it: run those commands (the worktree is gone, so discern cannot), then delete the ledger.",
				say`Then run ${ref("uninstall")} again.`,
			],
			{ data },
		);
	}

	const load = await loadConfig(root, ctx.narrate);
	const config = load.state === "valid" ? load.config : null;
	// What HEAD holds of a file: a co-owned file committed before refresh comes back exactly.
	const committed = (path: string) => committedText(root, path);
	// What refresh would compile now: an AGENTS.md equal to it (or to HEAD's generated one) is discern's to delete.
	const compiled = config ? await planInstructions(root, config, ctx.verbs).catch(() => undefined) : undefined;
	const compiledNow = compiled && !compiled.blocked ? compiled.after : null;
	const wiring = await planUnwiring(root, config?.project.agents ?? [], committed, compiledNow);
	const state = await planState(root, commonDir);
	if (!Array.isArray(state))
		return fail("uninstall", "write_denied", `Nothing was removed: ${state.reason}.`, [state.fix, say`Then run ${ref("uninstall")} again.`], { data });
	const sources = config?.instructions.sources ?? [];
	// Setup's folds of a person's AGENTS.md / CLAUDE.md / GEMINI.md go back to their names (and a pointer stays when AGENTS.md will).
	const unfolds = await planUnfolds(root, sources, wiring);
	const kept = await planKept(
		root,
		sources.filter((source) => !unfolds.some((unfold) => unfold.path === source)),
	);
	data.files = [...wiring.map(listedOf), ...unfolds.map(listedOf), ...state.map(listedOf), ...kept];

	const blocking = blockingOf(wiring);
	if (blocking) {
		const { first, more } = blocking;
		return fail("uninstall", first.error, `Nothing was removed: ${first.reason}${more}.`, [first.fix, say`Then run ${ref("uninstall")} again.`], { data });
	}

	const changing = [...wiring, ...unfolds, ...state].filter((file) => file.action !== "keep");
	const plan: PlanItem[] = data.files.map((file) => ({
		kind: file.action,
		label: file.path,
		disposition: file.action === "keep" ? "skip" : "run",
		note: file.note,
	}));
	if (changing.length === 0)
		return ok("uninstall", "Nothing of discern's to remove here: no generated file, no wiring, no runtime state.", data, { hints: keptHints(kept) });
	const would = `Would ${summary(changing)}.`;
	if (input.dry_run) return ok("uninstall", would, data, { dry_run: true, plan });
	if (!input.yes) {
		const preview = ok("uninstall", would, data, { dry_run: true, plan, hints: [say`Run ${ref("uninstall", { yes: true })} to remove them.`] });
		if (!ctx.confirm) return preview;
		if (!(await ctx.confirm("Remove what discern generated and wired?", preview))) {
			return ok("uninstall", "Nothing removed.", data, { dry_run: true, plan, hints: [say`Run ${ref("uninstall", { yes: true })} when you want it removed.`] });
		}
	}

	const done: string[] = [];
	for (const file of changing) {
		try {
			if ("full" in file) {
				// The state folder checked again as it is now (a link made since the plan is refused, never deleted through).
				stateFolder(commonDir, [], { create: false });
				await rm(file.full, { recursive: true, force: true });
			} else if ("to" in file) await carryOutUnfold(root, file);
			else await carryOut(root, file);
			done.push(file.path);
		} catch (error) {
			const refusal =
				error instanceof WriteDeniedError ? { message: error.message, hints: ["Remove the link, then run this again."] } : writeDenied(error, file.path);
			if (!refusal) throw error;
			const sofar = done.length > 0 ? ` Done before it: ${done.join(", ")}.` : " Nothing was removed.";
			return fail(
				"uninstall",
				"write_denied",
				`${file.path} could not be ${file.action === "strip" ? "written" : file.action === "move" ? "moved" : "removed"}: ${refusal.message}${sofar}`,
				[...refusal.hints, say`Then run ${ref("uninstall")} again: what is done is not done twice.`] as [string, ...string[]],
				{ data },
			);
		}
	}
	data.removed = true;
	return ok("uninstall", `Removed what discern generated and wired: ${summary(changing).replace(/^\w/, (letter) => letter.toLowerCase())}.`, data, {
		hints: keptHints(kept),
	});
}

function listedOf(file: UnwiringFile | StateEntry | Unfold): Listed {
	return { path: file.path, kind: "full" in file ? "state" : file.kind, action: file.action, note: file.note };
}

/** A stripped file gets its new bytes (its mode kept); a deleted one goes, and so do the folders it leaves empty. */
async function carryOut(root: string, file: UnwiringFile): Promise<void> {
	if (file.action === "strip") {
		await writeFileAtomic(root, file.path, file.after, { keepMode: true });
		return;
	}
	const full = await resolveInside(root, file.path);
	await rm(full, { force: true });
	await removeEmptyFolders(root, full);
}

function summary(files: readonly { action: string; kind?: string }[]): string {
	const deleted = files.filter((file) => file.action === "delete" && file.kind !== "state").length;
	const stripped = files.filter((file) => file.action === "strip").length;
	const moved = files.filter((file) => file.action === "move").length;
	const state = files.filter((file) => file.kind === "state").length;
	const parts = [
		deleted > 0 ? `delete ${plural(deleted, "generated file")}` : null,
		stripped > 0 ? `take discern's entries out of ${plural(stripped, "file")}` : null,
		moved > 0 ? `move ${plural(moved, "folded instruction file")} back to ${moved === 1 ? "its name" : "their names"}` : null,
		state > 0 ? `remove ${plural(state, "runtime state entry", "runtime state entries")} under the git dir` : null,
	].filter((part): part is string => part !== null);
	return parts.length > 1 ? `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}` : (parts[0] ?? "change nothing");
}

function keptHints(kept: readonly Listed[]): string[] {
	const names = kept.map((item) => item.path);
	const config = names.includes("discern.toml") ? " `git rm discern.toml` (and a commit) finishes removing discern." : "";
	return names.length > 0 ? [`Kept: ${names.join(", ")}.${config}`] : [];
}
