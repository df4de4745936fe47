import { lstat, mkdir, readFile, realpath, rename, unlink } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { isGenerated } from "../agents/instructions.ts";
import { generatedFiles, INSTRUCTIONS_FILE, isPointer, providersFor } from "../agents/providers.ts";
import { ignoredHere } from "../agents/wiring.ts";
import { git } from "../git/run.ts";
import { exists, isInside } from "../platform/files.ts";
import { pathArgument, shellCommand } from "../text/shell-quote.ts";

/**
 * A person's own AGENTS.md / CLAUDE.md / GEMINI.md, where discern is about to
 * generate those files: setup folds them into `[instructions].sources` instead
 * of overwriting them. A hand-written file moves (as `git mv` would, so its
 * history follows) to docs/agents/; refresh then compiles it, byte for byte,
 * after discern's own briefing. A link to another file in the repository is
 * removed and the file it points at becomes the source.
 */
export interface Fold {
	/** The file at the generated path. */
	from: string;
	/** move: where it goes; remove (a link): the file it pointed at. */
	to: string;
	action: "move" | "remove";
	reason: string;
}

export interface FoldPlan {
	folds: Fold[];
	/** Instruction files git ignores (a person's private notes): never folded into a shared source, left in place. */
	kept: { path: string; reason: string }[];
	/** What `[instructions].sources` lists, in order. */
	sources: string[];
}

const FOLDER = "docs/agents";

/** Where a generated file's hand-written text goes: AGENTS.md → docs/agents/instructions.md, CLAUDE.md → docs/agents/claude-instructions.md. */
export function destinationFor(path: string): string {
	const stem = path.replace(/\.md$/i, "").toLowerCase();
	// Not docs/agents/CLAUDE.md: agents read nested instruction files of those names (and macOS ignores case).
	return `${FOLDER}/${stem === "agents" ? "instructions" : `${stem}-instructions`}.md`;
}

export async function planFolds(root: string, agents: readonly string[]): Promise<FoldPlan> {
	if (agents.length === 0) return { folds: [], kept: [], sources: [] };
	const candidates = generatedFiles(providersFor(agents));
	const realRoot = await realpath(root);
	const folds: Fold[] = [];
	const taken = new Set<string>();
	/** Real path of a moved file → where it goes. */
	const moved = new Map<string, string>();
	const links: { path: string; real: string }[] = [];
	const kept: { path: string; reason: string }[] = [];
	for (const path of candidates) {
		const full = join(root, path);
		const stat = await lstat(full).catch(() => null);
		if (!stat) continue;
		// A file git ignores is this checkout's own (private notes): folding it would move it where git no longer ignores it, into a shared AGENTS.md.
		if (await ignoredHere(root, path)) {
			kept.push({ path, reason: ignoredReason(path) });
			continue;
		}
		if (stat.isSymbolicLink()) {
			const real = await realpath(full).catch(() => null);
			if (real !== null && isInside(realRoot, real) && (await lstat(real)).isFile()) links.push({ path, real });
			continue;
		}
		if (!stat.isFile()) continue;
		const text = await readFile(full, "utf8");
		if (path === INSTRUCTIONS_FILE ? isGenerated(text) : isPointer(text)) continue;
		const to = await freePath(root, destinationFor(path), taken);
		taken.add(to);
		moved.set(await realpath(full), to);
		folds.push({
			from: path,
			to,
			action: "move",
			reason: `${path} was written by hand: moved, and listed in [instructions].sources, so refresh compiles it into ${INSTRUCTIONS_FILE}`,
		});
	}
	for (const link of links) {
		const to = moved.get(link.real) ?? relative(realRoot, link.real);
		if (!moved.has(link.real) && !candidates.includes(to) && (await ignoredHere(root, to))) {
			kept.push({ path: link.path, reason: ignoredReason(link.path, to) });
			continue;
		}
		// A link to a file discern generates (CLAUDE.md → AGENTS.md when AGENTS.md is generated) carries no text of its own.
		const generated = candidates.includes(to) ? "" : `; ${to} becomes a source`;
		folds.push({
			from: link.path,
			to,
			action: "remove",
			reason: `${link.path} is a link to ${relative(realRoot, link.real)}: the link is removed${generated}`,
		});
	}
	const sources = [...new Set(folds.map((fold) => fold.to).filter((to) => !candidates.includes(to)))];
	return { folds, kept, sources };
}

function ignoredReason(path: string, target?: string): string {
	const what = target ? `${path} links to ${target}, which git ignores` : `${path} is ignored by git`;
	return `${what} (a checkout's own notes): left in place, not moved and not listed in [instructions].sources, so it stays private. Refresh will refuse to write ${path} over it: rename it (e.g. \`${shellCommand("mv", pathArgument(path), pathArgument(`${path.replace(/\.md$/i, "")}.local.md`))}\`, and ignore that name) or delete it, then run \`discern refresh\`.`;
}

/** `docs/agents/instructions.md`, or `…-2.md` when that is taken. */
async function freePath(root: string, wanted: string, taken: ReadonlySet<string>): Promise<string> {
	for (let n = 1; ; n++) {
		const path = n === 1 ? wanted : wanted.replace(/\.md$/, `-${n}.md`);
		if (!taken.has(path) && !(await exists(join(root, path)))) return path;
	}
}

/** Carry the plan out: `git mv` / `git rm` for tracked files (history follows), a rename (staged, unless ignored) or unlink otherwise. */
export async function applyFolds(root: string, folds: readonly Fold[]): Promise<void> {
	for (const fold of folds) {
		const tracked = (await git(["ls-files", "--error-unmatch", "--", fold.from], root)).exitCode === 0;
		if (fold.action === "move") {
			await mkdir(dirname(join(root, fold.to)), { recursive: true });
			if (tracked && (await git(["mv", "--", fold.from, fold.to], root)).exitCode === 0) continue;
			await rename(join(root, fold.from), join(root, fold.to));
			// A source must be tracked (refresh compiles nothing else): stage it (planFolds never folds an ignored file).
			await git(["add", "--", fold.to], root);
		} else {
			if (tracked && (await git(["rm", "-q", "--", fold.from], root)).exitCode === 0) continue;
			await unlink(join(root, fold.from));
		}
	}
}
