import { loadConfig } from "../../config/load.ts";
import { type Opened, openRepository } from "../../config/open-project.ts";
import type { VerbContext } from "../../contract/context.ts";
import type { Refusal } from "../../contract/envelope.ts";
import { ref } from "../../contract/refer.ts";
import type { RepositoryLocation } from "../../git/repository.ts";
import type { Trunk } from "../../git/trunk.ts";
import { resolveTrunk } from "../../trunk/resolve.ts";
import { type FleetWorktree, readFleet } from "../../worktree/fleet.ts";

export interface OpenedFleet {
	repository: RepositoryLocation;
	trunk: Trunk;
	/** Every worktree, the main checkout first; empty when git could not list them. */
	fleet: FleetWorktree[];
	/** False when git could not list the worktrees. */
	listed: boolean;
	/** The configured [worktree].root ("" for the default `<main>.worktrees`; "" too when the config is not valid). */
	worktreeRoot: string;
}

/** The repository, its trunk (from this checkout's config when valid) and every worktree read. */
export async function openFleet(ctx: VerbContext, where: "anywhere" | "main" = "anywhere"): Promise<Opened<OpenedFleet>> {
	const opened = await openRepository(ctx);
	if (!opened.ok) return opened;
	const { repository } = opened;
	if (where === "main" && repository.location !== "main") return { ok: false, refusal: notMain(ctx, repository) };
	const config = await loadConfig(repository.root, ctx.narrate);
	const { trunk } = await resolveTrunk(repository.root, config.state === "valid" ? config.config.repository.trunk : undefined, ctx.env.DISCERN_TRUNK, {
		location: repository,
	});
	const fleet = await readFleet(repository, trunk);
	const worktreeRoot = config.state === "valid" ? config.config.worktree.root : "";
	return { ok: true, repository, trunk, fleet: fleet ?? [], listed: fleet !== null, worktreeRoot };
}

function notMain(ctx: VerbContext, repository: RepositoryLocation): Refusal {
	const { say } = ctx;
	return {
		error: "not_main_checkout",
		message: `This runs in the main checkout only; ${repository.root} is a linked worktree.`,
		hints: [say`Run it from the main checkout (\`--cwd\` pointing there); ${ref("worktree list")} shows where that is.`],
	};
}
