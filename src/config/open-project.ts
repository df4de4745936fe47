import type { VerbContext } from "../contract/context.ts";
import type { Refusal } from "../contract/envelope.ts";
import { ref, type Say, type Surface } from "../contract/refer.ts";
import { mainCheckoutNear } from "../git/nearest-checkout.ts";
import { locateRepository, type RepositoryLocation } from "../git/repository.ts";
import { folderProblem } from "../platform/folder.ts";
import { clip } from "../text/clip.ts";
import { plural } from "../text/plural.ts";
import { endSentence } from "../text/sentence.ts";
import { shellCommand } from "../text/shell-quote.ts";
import { oneLine, quoteName } from "../text/terminal.ts";
import { CONFIG_FILE, type ConfigLoad, loadConfig } from "./load.ts";
import type { DiscernConfig } from "./schema.ts";

export type Opened<T> = ({ ok: true } & T) | { ok: false; refusal: Refusal };

export async function openRepository(ctx: VerbContext): Promise<Opened<{ repository: RepositoryLocation }>> {
	const unusable = await folderProblem(ctx.cwd);
	if (unusable) return { ok: false, refusal: folderRefusal(ctx.cwd, unusable, ctx.surface, await mainCheckoutNear(ctx.cwd, ctx.env)) };
	// The pipeline located it already (src/invoke.ts): looking again would cost a git call.
	if (ctx.repository) return { ok: true, repository: ctx.repository };
	const located = await locateRepository(ctx.cwd, ctx.env);
	// A repository git found but cannot name exactly: the folder is the problem, not its absence.
	if (!located.found && located.unprintable) return { ok: false, refusal: folderRefusal(ctx.cwd, located.reason, ctx.surface) };
	if (!located.found) {
		return {
			ok: false,
			refusal: {
				error: "no_repository",
				// git's own words may quote a path byte for byte: one clean line.
				message: `${clip(quoteName(ctx.cwd))} is not inside a git repository (${clip(oneLine(located.reason))}).`,
				hints: located.reason.includes("dubious ownership")
					? [
							`git refuses a repository owned by someone else: \`${shellCommand("git", "config", "--global", "--add", "safe.directory", ctx.cwd)}\` if you trust it.`,
						]
					: [
							elsewhere(ctx.surface, "Run discern inside a git checkout, or pass --cwd DIR.", "Pass an absolute `path` inside a git checkout."),
							"New project? `git init` first.",
						],
			},
		};
	}
	return { ok: true, repository: located.repository };
}

/**
 * The folder itself is the problem (missing, a file, a symlink loop, a name
 * that is not UTF-8): say that, not "not a git repository". A folder that is
 * gone was often a task's worktree that `accept` removed while a shell stood
 * in it: the main checkout it belonged to, when one is near, is where to go.
 */
export function folderRefusal(cwd: string, problem: string, surface: Surface, mainCheckout: string | null = null): Refusal {
	const elsewhereHint = elsewhere(
		surface,
		"Pass --cwd DIR naming a folder inside a git checkout.",
		"Pass an absolute `path` naming a folder inside a git checkout.",
	);
	return {
		error: "no_repository",
		message: `discern cannot work in ${quoteName(cwd)}: ${endSentence(clip(problem))}`,
		hints: mainCheckout
			? [
					elsewhere(
						surface,
						`The main checkout is ${quoteName(mainCheckout)}: \`${shellCommand("cd", mainCheckout)}\`.`,
						`The main checkout is ${quoteName(mainCheckout)}: pass it as \`path\`.`,
					),
					elsewhereHint,
				]
			: [elsewhereHint],
	};
}

/** The refusal for a config that is missing or broken, for verbs that cannot work without one (`say` is the caller's `ctx.say`). */
export function configRefusal(load: Exclude<ConfigLoad, { state: "valid" }>, say: Say): Refusal {
	if (load.state === "missing") {
		return {
			error: "no_project",
			message: `No ${CONFIG_FILE} at ${clip(load.path)}: discern is not set up in this repository.`,
			hints: [say`Run ${ref("setup")} to detect the stack and propose jobs, then ${ref("setup", { confirmed: true })} to write the file.`],
		};
	}
	const first = load.issues[0];
	const where = first?.line ? ` (line ${first.line})` : "";
	return {
		error: "invalid_config",
		message: `${CONFIG_FILE} has ${plural(load.issues.length, "problem")}; first${where}: ${endSentence(first?.message ?? "unknown")}`,
		hints: [say`Run ${ref("config validate")} to see every problem with its line.`, say`See ${ref("docs", { target: "config" })} for the reference.`],
	};
}

/** Repository and a valid config, or the refusal that says why not. */
export async function openProject(ctx: VerbContext): Promise<Opened<{ repository: RepositoryLocation; config: DiscernConfig; configBytes: Uint8Array }>> {
	const opened = await openRepository(ctx);
	if (!opened.ok) return opened;
	const load = await loadConfig(opened.repository.root, ctx.narrate);
	if (load.state !== "valid") return { ok: false, refusal: configRefusal(load, ctx.say) };
	return { ok: true, repository: opened.repository, config: load.config, configBytes: load.bytes };
}

/** Where to point discern instead: a flag on the CLI, the `path` argument over MCP. */
function elsewhere(surface: Surface, cli: string, mcp: string): string {
	return surface === "cli" ? cli : mcp;
}
