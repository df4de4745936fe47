import { lstat, mkdir, readFile, realpath, rename, unlink } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { isGenerated } from "../agents/instructions.ts";
import { INSTRUCTIONS_FILE, POINTER_TEXT, providersFor } from "../agents/providers.ts";
import { git } from "../git/run.ts";
import { exists, isInside } from "../platform/files.ts";

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
	/** What `[instructions].sources` lists, in order. */
	sources: string[];
}

const FOLDER = "docs/agents";

/** Where a generated file's hand-written text goes: AGENTS.md → docs/agents/instructions.md, CLAUDE.md → docs/agents/claude-instructions.md. */
function destinationFor(path: string): string {
	const stem = path.replace(/\.md$/i, "").toLowerCase();
	// Not docs/agents/CLAUDE.md: agents read nested instruction files of those names (and macOS ignores case).
	return `${FOLDER}/${stem === "agents" ? "instructions" : `${stem}-instructions`}.md`;
}

export async function planFolds(root: string, agents: readonly string[]): Promise<FoldPlan> {
	if (agents.length === 0) return { folds: [], sources: [] };
	const candidates = [INSTRUCTIONS_FILE, ...providersFor(agents).flatMap((provider) => (provider.pointer ? [provider.pointer] : []))];
	const realRoot = await realpath(root);
	const folds: Fold[] = [];
	const taken = new Set<string>();
	/** Real path of a moved file → where it goes. */
	const moved = new Map<string, string>();
	const links: { path: string; real: string }[] = [];
	for (const path of candidates) {
		const full = join(root, path);
		const stat = await lstat(full).catch(() => null);
		if (!stat) continue;
		if (stat.isSymbolicLink()) {
			const real = await realpath(full).catch(() => null);
			if (real !== null && isInside(realRoot, real) && (await lstat(real)).isFile()) links.push({ path, real });
			continue;
		}
		if (!stat.isFile()) continue;
		const text = await readFile(full, "utf8");
		if (path === INSTRUCTIONS_FILE ? isGenerated(text) : text.trim() === POINTER_TEXT.trim()) continue;
		const to = await freePath(root, destinationFor(path), taken);
		taken.add(to);
		moved.set(await realpath(full), to);
		folds.push({ from: path, to, action: "move", reason: `${path} was written by hand: moved, and listed in [instructions].sources, so refresh compiles it into ${INSTRUCTIONS_FILE}` });
	}
	for (const link of links) {
		const to = moved.get(link.real) ?? relative(realRoot, link.real);
		// A link to a file discern generates (CLAUDE.md → AGENTS.md when AGENTS.md is generated) carries no text of its own.
		const generated = candidates.includes(to) ? "" : `; ${to} becomes a source`;
		folds.push({ from: link.path, to, action: "remove", reason: `${link.path} is a link to ${relative(realRoot, link.real)}: the link is removed${generated}` });
	}
	const sources = [...new Set(folds.map((fold) => fold.to).filter((to) => !candidates.includes(to)))];
	return { folds, sources };
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
			const ignored = (await git(["check-ignore", "-q", "--", fold.from], root)).exitCode === 0;
			await rename(join(root, fold.from), join(root, fold.to));
			// A source must be tracked (refresh compiles nothing else): stage it, unless git ignored it (a checkout's own file stays unshared).
			if (!ignored) await git(["add", "--", fold.to], root);
		} else {
			if (tracked && (await git(["rm", "-q", "--", fold.from], root)).exitCode === 0) continue;
			await unlink(join(root, fold.from));
		}
	}
}
