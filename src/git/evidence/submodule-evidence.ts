import { lstat, mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { quoteName } from "../../text/terminal.ts";
import type { ChangedPath, WorkingState } from "../status.ts";
import type { Entry } from "./expected-content.ts";

/**
 * A submodule's part of the evidence (evidence.ts): judged as a repository
 * of its own against the commit the superproject records, by the same
 * evidence, one level down.
 */

/** The evidence of one repository level (evidence.ts `openIn`), as a submodule needs it. */
export type OpenLevel = (
	root: string,
	revision: string,
	dir: string,
	name: string,
) => Promise<
	{ ok: true; index: { status(options: { deadlineS: number }): Promise<WorkingState | null>; close(): Promise<void> } } | { ok: false; reason: string }
>;

export interface Submodule {
	/** Why this submodule cannot be vouched for. */
	refused?: string;
	/** Its paths that differ from the commit the superproject records, prefixed with its path; `deadlineS`: see `EvidenceIndex.status`. */
	changes(deadlineS: number): Promise<ChangedPath[] | null>;
	/** Ends its evidence's git processes (its object reader). */
	close(): Promise<void>;
}

/**
 * A submodule is clean when its folder is checked out at exactly the
 * recorded commit with a clean tree, or is absent or an empty folder (not
 * initialised). A file or symbolic link where the submodule belongs, or
 * files in an uninitialised submodule's folder, are changes: git does not
 * see them, the jobs do.
 */
export async function openSubmodule(root: string, link: Entry, dir: string, parent: string | null, openLevel: OpenLevel): Promise<Submodule> {
	const folder = join(root, link.path);
	const name = parent === null ? link.path : `${parent}/${link.path}`;
	const changed = (kind: ChangedPath["kind"]): ChangedPath[] => [{ path: link.path, kind, staged: false }];
	const unpopulated = async (): Promise<ChangedPath[]> => {
		const place = await lstat(folder).catch(() => null);
		if (!place) return [];
		if (!place.isDirectory()) return changed("type_changed");
		const inside = await readdir(folder).catch(() => null);
		return inside === null || inside.length > 0 ? changed("untracked") : [];
	};
	const place = await lstat(folder).catch(() => null);
	const populated = place?.isDirectory() ? await lstat(join(folder, ".git")).catch(() => null) : null;
	if (!populated) return { changes: unpopulated, close: async () => undefined };
	const made = await mkdir(dir, { recursive: true }).then(
		() => true,
		() => false,
	);
	const opened = made
		? await openLevel(folder, link.blob, dir, name)
		: { ok: false as const, reason: `discern could not make a folder for ${quoteName(name)}` };
	if (!opened.ok) return { refused: `the submodule ${quoteName(name)}: ${opened.reason}`, changes: async () => null, close: async () => undefined };
	const prefix = (change: ChangedPath): ChangedPath => ({ ...change, path: `${link.path}/${change.path}` });
	return {
		close: () => opened.index.close(),
		async changes(deadlineS) {
			// The folder itself may have been replaced since (a file, a link): judge the place first.
			const now = await lstat(folder).catch(() => null);
			if (!now?.isDirectory()) return changed(now ? "type_changed" : "deleted");
			const state = await opened.index.status({ deadlineS });
			if (!state) return null;
			// HEAD elsewhere than the recorded commit is a change even when the files happen to match.
			const moved = state.head !== link.blob ? changed("modified") : [];
			return [...moved, ...state.changes.map(prefix)];
		},
	};
}
