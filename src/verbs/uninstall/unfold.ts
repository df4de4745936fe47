import { lstat, mkdir, rename } from "node:fs/promises";
import { dirname, join } from "node:path";
import { generatedFiles, INSTRUCTIONS_FILE } from "../../agents/providers.ts";
import type { UnwiringFile } from "../../agents/unwiring.ts";
import { git } from "../../git/run.ts";
import { removeEmptyFolders, resolveInside } from "../../platform/files.ts";
import { destinationFor } from "../../setup/instructions.ts";
import type { Listed } from "./state.ts";

/** Setup's fold of a person's AGENTS.md / CLAUDE.md / GEMINI.md, going back to its own name. */
export interface Unfold extends Listed {
	/** Where it goes back to. */
	to: string;
}

/**
 * The inverse of setup's fold (src/setup/instructions.ts): a source listed
 * in `[instructions].sources` at the very path setup moves a hand-written
 * AGENTS.md (CLAUDE.md, GEMINI.md) to goes back to that name, when the name
 * will be free (nothing there, or the generated file there is being deleted).
 * Then a pointer (`@AGENTS.md`) goes only when nothing will be at AGENTS.md.
 */
export async function planUnfolds(root: string, sources: readonly string[], wiring: UnwiringFile[]): Promise<Unfold[]> {
	const unfolds: Unfold[] = [];
	// Each name discern generates, from which setup may have folded a person's file.
	for (const name of generatedFiles()) {
		const fold = destinationFor(name);
		if (!sources.includes(fold)) continue;
		const source = await lstat(join(root, fold)).catch(() => null);
		if (!source?.isFile()) continue;
		const there = await lstat(join(root, name)).catch(() => null);
		const planned = wiring.find((file) => file.path === name);
		if (there && planned?.action !== "delete") continue;
		unfolds.push({
			path: fold,
			to: name,
			kind: "source",
			action: "move",
			note: `setup's fold of your ${name}: moved back to ${name}${there ? ` (after discern's generated ${name} is deleted)` : ""}; [instructions].sources in discern.toml still names ${fold}`,
		});
	}
	const stays =
		(await lstat(join(root, INSTRUCTIONS_FILE)).catch(() => null)) !== null && wiring.find((file) => file.path === INSTRUCTIONS_FILE)?.action !== "delete";
	const agentsAfter = stays || unfolds.some((unfold) => unfold.to === INSTRUCTIONS_FILE);
	if (agentsAfter) {
		for (const [index, file] of wiring.entries()) {
			if (file.kind !== "pointer" || file.action !== "delete") continue;
			// A pointer restored over (CLAUDE.md's own fold moving back) is deleted first, as planned.
			if (unfolds.some((unfold) => unfold.to === file.path)) continue;
			wiring[index] = {
				...file,
				action: "keep",
				note: `points at ${INSTRUCTIONS_FILE}, which stays (${unfolds.some((unfold) => unfold.to === INSTRUCTIONS_FILE) ? "your own, moved back" : "not discern's to delete"}): kept; delete it by hand if you do not want it`,
			};
		}
	}
	return unfolds;
}

/** Move one fold back: `git mv` when tracked (history follows), else a rename; the folders it leaves empty go. */
export async function carryOutUnfold(root: string, unfold: Unfold): Promise<void> {
	const from = await resolveInside(root, unfold.path);
	const to = await resolveInside(root, unfold.to);
	const tracked = (await git(["ls-files", "--error-unmatch", "--", unfold.path], root)).exitCode === 0;
	if (!(tracked && (await git(["mv", "--", unfold.path, unfold.to], root)).exitCode === 0)) {
		await mkdir(dirname(to), { recursive: true });
		await rename(from, to);
		if (tracked) await git(["add", "-A", "--", unfold.path, unfold.to], root);
	}
	await removeEmptyFolders(root, from);
}
