import { posix } from "node:path";
import { INSTRUCTIONS_FILE, providersFor } from "../agents/providers.ts";
import { CONFIG_FILE } from "../config/load.ts";
import type { DiscernConfig } from "../config/schema.ts";
import { COMMITTED_IGNORE_RULES } from "../git/evidence/outside-the-tree.ts";
import { nulSeparated } from "../git/nul-list.ts";
import { git } from "../git/run.ts";
import type { ChangedPath } from "../git/status.ts";
import { IGNORE_FILE } from "./ignores.ts";

/**
 * The adoption commit: the one commit setup asks for on the trunk, of the
 * files it wrote (discern.toml, the map skeleton, the .gitignore lines, the
 * instruction sources it folded a person's file into, and the agent files
 * refresh generated). Until it is made, a trunk whose only uncommitted
 * changes are those files is not a trunk with work to move onto a branch:
 * status names this commit instead.
 */

/** Every path setup may have written for this configuration. */
export function adoptionPaths(config: DiscernConfig): Set<string> {
	const paths = new Set([CONFIG_FILE, IGNORE_FILE, mapReadme(config.map.dir), ...config.instructions.sources.map(normalized)]);
	// Only a setup that wired agents generated their files (refresh writes AGENTS.md only then).
	if (config.project.agents.length > 0) {
		paths.add(INSTRUCTIONS_FILE);
		for (const provider of providersFor(config.project.agents)) {
			for (const path of [provider.pointer, provider.mcp.file, provider.hook?.file]) if (path !== undefined) paths.add(path);
		}
	}
	return paths;
}

/**
 * The paths the adoption commit adds, when every uncommitted change is a
 * file setup writes and discern.toml itself is not committed yet; null
 * otherwise. An untracked folder git reports whole (`docs/`) counts only
 * when each file in it is setup's, by the ignore rules the gate honours
 * (committed .gitignore files): a person's draft beside the map skeleton is
 * theirs, not the adoption's. A deletion already staged (setup's `git rm` of
 * a link) is committed without being named.
 */
export async function pendingAdoption(root: string, config: DiscernConfig, changes: readonly ChangedPath[]): Promise<string[] | null> {
	if (!changes.some((change) => change.path === CONFIG_FILE && (change.kind === "untracked" || change.kind === "added"))) return null;
	const setups = adoptionPaths(config);
	const adding = new Set<string>();
	for (const change of changes) {
		if (change.kind === "conflicted" || change.kind === "unreadable") return null;
		if (change.kind === "untracked" && change.path.endsWith("/")) {
			const files = await untrackedIn(root, change.path);
			if (files === null || files.length === 0 || !files.every((file) => setups.has(file))) return null;
			for (const file of files) adding.add(file);
			continue;
		}
		if (!setups.has(change.path)) return null;
		if (!(change.kind === "deleted" && change.staged)) adding.add(change.path);
	}
	return [...adding].sort();
}

/** The untracked files under `folder`, as the gate sees them (only committed ignore rules hide one); null when git cannot say. */
async function untrackedIn(root: string, folder: string): Promise<string[] | null> {
	const listed = await git(["ls-files", "-z", "--others", ...COMMITTED_IGNORE_RULES, "--", `:(literal)${folder}`], root);
	return listed.exitCode === 0 ? nulSeparated(listed.stdout) : null;
}

/** Where setup writes the map skeleton for `[map].dir` (`docs/map/` → `docs/map/README.md`). */
function mapReadme(dir: string): string {
	const folder = normalized(dir).replace(/\/+$/, "");
	return folder === "." || folder === "" ? "README.md" : `${folder}/README.md`;
}

function normalized(path: string): string {
	return posix.normalize(path.trim().replaceAll("\\", "/"));
}
