import { ref, type SurfaceWords } from "../../contract/refer.ts";
import { clip } from "../../text/clip.ts";
import { plural } from "../../text/plural.ts";
import { pathArgument, shellCommand } from "../../text/shell-quote.ts";
import { oneLine, quoteName } from "../../text/terminal.ts";
import { contestedVotes } from "../../trunk/candidates.ts";
import { ADOPTION_MESSAGE, RED_TRUNK_TITLE, REFRESH_TITLE, redTrunkRemedy, refreshOnTrunk } from "../../trunk/on-the-trunk.ts";
import type { OrphanedLedger, WorktreeItem } from "../../worktree/item.ts";
import type { StatusData } from "./schema.ts";

type Next = StatusData["next"];

/** The caller's `ctx.say` and `ctx.action`: a next action is the command itself, its reason a sentence. */
type Words = Pick<SurfaceWords, "say" | "action">;

/** What status read besides the facts it shows. */
export interface Circumstances {
	/** Why discern.toml is invalid, when it is. */
	configProblem: string | null;
	/** Why git could not read the checkout, when it could not. */
	gitTrouble?: string | null;
	/** On the trunk: the paths of the adoption commit still to make (every change is a file setup wrote; setup/adoption.ts), else null. */
	adoption?: readonly string[] | null;
}

/**
 * The single most useful next action, from the facts alone. Ordered from
 * "nothing works until this is fixed" to "carry on with the loop".
 */
export function nextAction(words: Words, facts: Omit<StatusData, "next">, { configProblem, gitTrouble = null, adoption = null }: Circumstances): Next {
	const { say, action: act } = words;
	const onTrunk = facts.branch !== null && facts.branch === facts.trunk.name;
	// Nothing else can be judged when git itself cannot read the checkout.
	if (facts.clean === null) {
		return { action: "git status", reason: `git could not report the working tree${gitTrouble ? `: ${oneLine(gitTrouble)}` : ""}.` };
	}
	if (facts.project.config === "missing") {
		return { action: act`${ref("setup")}`, reason: "No discern.toml yet: detect the stack and propose the jobs that define done." };
	}
	if (facts.project.config === "invalid") {
		return { action: act`${ref("config validate")}`, reason: `discern.toml is invalid (${configProblem ?? "see the problems listed"}).` };
	}
	if (facts.head === null) {
		return { action: "git commit", reason: "The repository has no commits yet; make the first commit on the trunk." };
	}
	if (facts.branch === null) {
		return { action: "git switch <branch>", reason: "HEAD is detached; work happens on a branch." };
	}
	if (!facts.trunk.exists) {
		const name = clip(facts.trunk.name ?? "(none)");
		return {
			action: act`${ref("config set", { key: "repository.trunk", value: "BRANCH" })}`,
			reason: `The trunk \`${name}\` (${facts.trunk.source.replaceAll("_", " ")}) does not exist locally; name the landing branch.`,
		};
	}
	if (facts.jobs.test.length === 0) {
		return { action: "edit discern.toml", reason: 'No test-stage job is declared, so the gate cannot test anything; add `test = "…"` under [jobs].' };
	}
	// The jobs themselves changed the tree: rerunning the same commit would only drift again.
	if (drifted(facts)) return onTrunk ? afterDriftOnTrunk(words, facts.clean) : afterDrift(words, facts.clean);
	// A red commit comes first wherever it is: the next move is to fix it. On the trunk, as the instructions say, in a task of its own.
	if (facts.proof.state === "red" && facts.clean && onTrunk) {
		return {
			action: act`${ref("start", { title: RED_TRUNK_TITLE })}`,
			reason: say`The gate failed on the trunk's own commit (${facts.proof.failed_stage ?? "unknown"} stage). ${redTrunkRemedy(say)} ${ref("done", { rerun: true })} only if it was flaky.`,
		};
	}
	if (facts.proof.state === "red" && facts.clean) {
		return {
			action: act`fix, commit, ${ref("done")}`,
			reason: say`The gate failed on this commit (${facts.proof.failed_stage ?? "unknown"} stage); ${ref("done", { rerun: true })} only if it was flaky.`,
		};
	}
	// In a clean main checkout the fleet comes first: proven work waiting for its owner, then landed worktrees to clear away.
	const fleet = facts.location === "main" && facts.clean ? fleetAction(words, facts.worktrees ?? [], facts.orphaned_ledgers ?? []) : null;
	if (fleet) return fleet;
	// Generated agent files out of date: done would fail at its instructions stage.
	if (facts.stale_wiring.length > 0 && facts.clean) {
		const stale = `Agent files are stale (${clip(facts.stale_wiring.join(", "))})`;
		// On the trunk the regenerated files are a change like any other: a task's, landed with consent.
		return onTrunk && facts.location === "main"
			? {
					action: act`${ref("start", { title: REFRESH_TITLE })}`,
					reason: `${stale}, and the gate fails at its instructions stage. ${refreshOnTrunk(say)}`,
				}
			: { action: act`${ref("refresh")}`, reason: `${stale}: regenerate them and commit, or the gate fails at its instructions stage.` };
	}
	// The files setup wrote, alone on the trunk: the one commit made there by hand, as setup asked.
	if (facts.location === "main" && onTrunk && adoption && adoption.length > 0) {
		return {
			action: `${shellCommand("git", "add", "--", ...adoption.map(pathArgument))} && ${shellCommand("git", "commit", "-m", ADOPTION_MESSAGE)}`,
			reason:
				"The trunk's only uncommitted changes are the files setup wrote: review them, then commit them on the trunk as the adoption commit, the one commit made there by hand; every task after it gets a branch of its own.",
		};
	}
	// On the trunk itself: each task belongs in a worktree of its own.
	if (facts.location === "main" && onTrunk) {
		return facts.clean
			? {
					action: act`${ref("start", { title: "TITLE" })}`,
					reason: "You are on the trunk: each task gets a worktree and a branch of its own; work there, then run the fast checks.",
				}
			: {
					action: act`git switch -c BRANCH, git commit, then ${ref("done")}`,
					reason: `The trunk has ${plural(facts.changes.total, "uncommitted change")}: move them onto a branch of their own, commit, and run the gate.`,
				};
	}
	if (!facts.clean) return { action: act`git commit, then ${ref("done")}`, reason: "Commit the work so the gate can check the exact tree." };
	if ((facts.behind ?? 0) > 0) {
		const lacks = `The trunk has ${plural(facts.behind ?? 0, "commit")} this branch lacks`;
		return facts.location === "worktree"
			? { action: act`${ref("update")}`, reason: say`${lacks}: merge it in (never a rebase), then run ${ref("done")} again.` }
			: {
					action: facts.trunk.name ? shellCommand("git", "merge", facts.trunk.name) : "git merge TRUNK",
					reason: `${lacks}: merge it, commit, then run the gate again.`,
				};
	}
	const contested = facts.trunk.contested ?? [];
	if (contested.length > 0) {
		const votes = contestedVotes(contested);
		return {
			action: "ask a person to settle which branch is the trunk",
			reason: `Committed discern.tomls disagree on the trunk: discern takes \`${clip(facts.trunk.name ?? "")}\`, but ${votes}. Nothing lands until a person deletes the wrong one or names the trunk with DISCERN_TRUNK.`,
		};
	}
	if (facts.proof.state === "honored") {
		const proof = facts.proof.line ?? "A Proof covers this commit";
		return facts.location === "worktree"
			? {
					action: act`relay the Proof line to the owner; once they consent, ${ref("accept", { confirmed: true })}`,
					reason: `${proof}. Landing needs the owner's consent for this landing.`,
				}
			: { action: "ask the owner to land it", reason: `${proof}: relay it; landing needs the owner's consent.` };
	}
	if ((facts.ahead ?? 0) > 0) return { action: act`${ref("done")}`, reason: "Committed work is ahead of the trunk: run the gate to earn a Proof." };
	return { action: act`${ref("prepare")}`, reason: "Nothing committed yet beyond the trunk: make the change, then run the fast checks." };
}

/**
 * Did the last `done` of this very commit fail because the tree changed
 * under it? Drift is never recorded as the commit's verdict (it may have come
 * from outside), so the last run says it, not the Proof state.
 */
function drifted(facts: Omit<StatusData, "next">): boolean {
	const run = facts.last_run;
	if (facts.proof.state === "red" && facts.proof.failed_stage === "tree_drift") return true;
	return run !== null && run.verb === "done" && !run.ok && run.failed_stage === "tree_drift" && run.head !== null && run.head === facts.head;
}

/**
 * After `done` failed with `tree_drift` on this commit: a job wrote into the
 * tree (a formatter's edits, build output, a report). The remedy is in the
 * repository, not in running the gate again.
 */
function afterDrift({ say, action }: Words, clean: boolean | null): Next {
	const failed = say`The last ${ref("done")} of this commit failed because its jobs changed the tree (tree_drift)`;
	const then = say`add the files they create (build output, reports) to .gitignore; then run ${ref("done")} on the new commit.`;
	return {
		action: action`commit the jobs' changes (or .gitignore their output), then ${ref("done")}`,
		reason: clean
			? say`${failed}. Run them yourself (${ref("prepare")} for formatters) and commit what they change, or ${then}`
			: `${failed}, and the changes are here: commit what they rewrote, or ${then}`,
	};
}

/**
 * The same on the trunk, where nothing is committed by hand: the repair is
 * a task's (clean), or the jobs' changes go onto a branch of their own first.
 */
function afterDriftOnTrunk({ say, action }: Words, clean: boolean | null): Next {
	const failed = say`The last ${ref("done")} of the trunk's own commit failed because its jobs changed the tree (tree_drift)`;
	const repair = "commit what they change, or .gitignore the files they create";
	return clean
		? { action: action`${ref("start", { title: RED_TRUNK_TITLE })}`, reason: `${failed}. ${redTrunkRemedy(say)} There, ${repair}.` }
		: {
				action: action`git switch -c BRANCH, commit the jobs' changes (or .gitignore their output), then ${ref("done")}`,
				reason: `${failed}, and the changes are here: move them onto a branch of their own (never a commit on the trunk), ${repair}, and run the gate there.`,
			};
}

/**
 * What the fleet asks of the person at the main checkout: a worktree whose
 * Proof is honored awaits review before its owner lands it; worktrees
 * discern started whose work landed and that are clean can be pruned.
 */
function fleetAction({ action }: Words, worktrees: readonly WorktreeItem[], orphans: readonly OrphanedLedger[] = []): Next | null {
	const proven = worktrees.filter((worktree) => worktree.proof === "honored" && worktree.clean === true && (worktree.ahead ?? 0) > 0);
	const first = proven[0];
	if (first) {
		const name = clip(quoteName(first.id ?? first.branch ?? first.path));
		const others = proven.length > 1 ? ` (and ${plural(proven.length - 1, "other")})` : "";
		const target = first.id ?? first.branch;
		return {
			action: target
				? action`review worktree ${name} at ${clip(quoteName(first.path))}; to land it, ${ref("accept", { target })}`
				: `review worktree ${name} at ${clip(quoteName(first.path))}`,
			reason: `Its Proof is honored and ${plural(first.ahead ?? 0, "commit")} await${first.ahead === 1 ? "s" : ""} landing${others}: review the work; landing it needs the owner's consent.`,
		};
	}
	// Landed, as `worktree prune` judges it: commits beyond the task's base, all on the trunk (a fresh worktree has not landed).
	const landed = worktrees.filter(
		(worktree) => worktree.created_by_discern && worktree.clean === true && worktree.landed === true && !worktree.locked && worktree.problem === null,
	);
	if (landed.length > 0) {
		return {
			action: action`${ref("worktree prune")}`,
			reason: `${plural(landed.length, "worktree")} discern started ${landed.length === 1 ? "has" : "have"} landed and ${landed.length === 1 ? "is" : "are"} clean: clear ${landed.length === 1 ? "it" : "them"} away.`,
		};
	}
	const orphan = orphans[0];
	if (orphan) {
		return {
			action: action`${ref("worktree drop", { id: orphan.id, force: true })}`,
			reason: `The worktree ${clip(quoteName(orphan.id))} is gone but its resources (${clip(orphan.resources.join(", "))}) were never destroyed${orphans.length > 1 ? ` (and ${plural(orphans.length - 1, "other")})` : ""}.`,
		};
	}
	return null;
}
