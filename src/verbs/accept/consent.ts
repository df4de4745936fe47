import { parseConfig } from "../../config/load.ts";
import { commitsBetween, type LoggedCommit } from "../../git/commit-log.ts";
import { withObjectReader } from "../../git/object-reader.ts";
import { committedChanges, type TreeChange } from "../../git/tree-diff.ts";
import type { Trunk } from "../../git/trunk.ts";
import { readCommittedConfig } from "../../proof/committed-config.ts";
import { gateChanges } from "../../proof/gate-changes.ts";
import { STEERING_SHOWN, type SteeringChange, steeringChanges } from "../../proof/steering-changes.ts";
import { compileScopes } from "../../scopes/glob.ts";
import { steeringPhrase } from "../../scopes/steering.ts";
import { clip } from "../../text/clip.ts";
import { noun, plural } from "../../text/plural.ts";
import { quoteName } from "../../text/terminal.ts";
import { short } from "./again.ts";
import type { Target } from "./target.ts";

/** What landing would bring to the trunk, and whether the trunk's own config lets it land without asking. */
export interface Landing {
	commits: LoggedCommit[];
	commitsTotal: number;
	files: string[];
	/** False when git could not list the changes: nothing is then pre-authorized. */
	complete: boolean;
	/** Scopes (of the trunk's config) the changed files fall in. */
	scopes: string[];
	/** Every changed path falls in a scope the trunk's committed `[acceptance].pre_authorized` lists. */
	preAuthorized: boolean;
	/** Each file and the pre-authorized scope that lets it land (when `preAuthorized`). */
	authorized: { path: string; scope: string }[];
	/** Submodule pointer and symbolic link changes: never pre-authorized, whatever their path. */
	special: { path: string; kind: "submodule" | "symlink" }[];
	/** Changed files that steer agents (scopes/steering.ts): never pre-authorized, each shown with its changed lines. */
	steering: SteeringChange[];
	/** How the branch changes the gate itself against the trunk's committed config (jobs, scopes), and what steers agents. */
	gateChanges: string[];
	/** Why not, when not (for the message). */
	why: string;
}

const CAP = 50;

/**
 * Read what `head` would bring onto the trunk at `trunkSha`, and judge
 * pre-authorization by the trunk's committed discern.toml at that exact
 * commit: the branch's copy is the thing being judged, so it can never
 * grant itself authority (nor redraw a scope's paths to fit). A submodule
 * pointer or a symbolic link changed, or the gate itself changed, always
 * needs the owner: their effect is not the path they sit at.
 */
export async function readLanding(root: string, trunkSha: string, head: string): Promise<Landing> {
	// One object reader for the reads of hashed objects below.
	const { logged, diff, shown, branchShown, trunkParsed, branchParsed, steering } = await withObjectReader(root, undefined, async (reader) => {
		const [logged, diff, shown, branchShown] = await Promise.all([
			commitsBetween(root, trunkSha, head),
			// From hashed objects: git's own diff descends into trees it never re-hashes (git/tree-diff.ts).
			committedChanges(root, trunkSha, head, { reader }),
			readCommittedConfig(root, trunkSha, reader),
			readCommittedConfig(root, head, reader),
		]);
		const trunkParsed = shown.state === "read" ? parseConfig(shown.text) : null;
		const branchParsed = branchShown.state === "read" ? parseConfig(branchShown.text) : null;
		// The sources either config compiles into AGENTS.md: the trunk's now, the branch's once it lands.
		const sources = [trunkParsed, branchParsed].flatMap((parsed) => (parsed?.ok ? parsed.config.instructions.sources : []));
		const steering = typeof diff === "string" ? [] : await steeringChanges(reader, [trunkSha, head], diff, sources);
		return { logged, diff, shown, branchShown, trunkParsed, branchParsed, steering };
	});
	const commits = logged ?? [];
	// A discern.toml git could not read leaves the landing untold (what it does to the gate unknown), never "absent".
	const configsRead = shown.state !== "unreadable" && branchShown.state !== "unreadable";
	const complete = logged !== null && typeof diff !== "string" && configsRead;
	const { files, special } = typeof diff !== "string" ? filesOf(diff) : { files: [], special: [] };
	const changes = [
		...(trunkParsed?.ok && branchParsed?.ok ? gateChanges(trunkParsed.config, branchParsed.config) : []),
		...steering.map((entry) => steeringPhrase(entry.path, entry.change)),
		...ignoreRuleChanges(files),
	];
	const base = { commits: commits.slice(0, CAP), commitsTotal: commits.length, files, complete, special, steering, gateChanges: changes, authorized: [] };
	if (!configsRead)
		return {
			...base,
			scopes: [],
			preAuthorized: false,
			why: "git could not read the trunk's or the branch's discern.toml, so what the landing does to the gate is unknown",
		};
	if (!complete) return { ...base, scopes: [], preAuthorized: false, why: typeof diff === "string" ? diff : "git could not list the changes" };
	if (!trunkParsed) return { ...base, scopes: [], preAuthorized: false, why: "the trunk has no committed discern.toml" };
	if (!trunkParsed.ok) return { ...base, scopes: [], preAuthorized: false, why: "the trunk's committed discern.toml does not validate" };
	const { config } = trunkParsed;
	let classifier: ReturnType<typeof compileScopes>;
	try {
		classifier = compileScopes(config.scopes);
	} catch {
		return { ...base, scopes: [], preAuthorized: false, why: "the trunk's scopes do not compile" };
	}
	const allowed = new Set(config.acceptance.pre_authorized);
	const touched = new Set<number>();
	const outside: string[] = [];
	const authorized: Landing["authorized"] = [];
	for (const path of files) {
		const own = classifier.scopesOf(path);
		for (const index of own) touched.add(index);
		const scope = own.map((index) => classifier.scopes[index]?.name ?? "").find((name) => allowed.has(name));
		if (scope === undefined) outside.push(path);
		else authorized.push({ path, scope });
	}
	const scopes = classifier.scopes.filter((_, index) => touched.has(index)).map((scope) => scope.name);
	const judged = { ...base, scopes };
	if (allowed.size === 0) return { ...judged, preAuthorized: false, why: "the trunk's discern.toml pre-authorizes no scope" };
	if (files.length === 0) return { ...judged, preAuthorized: false, why: "the branch changes no file" };
	if (special.length > 0) {
		const named = special.slice(0, 3).map((entry) => `${quoteName(entry.path)} (${entry.kind === "submodule" ? "a submodule pointer" : "a symbolic link"})`);
		return {
			...judged,
			preAuthorized: false,
			why: `${plural(special.length, "change")} ${special.length === 1 ? "is" : "are"} never pre-authorized, whatever the scope: ${named.join(", ")}${special.length > 3 ? ", …" : ""} — what a submodule pointer or a symbolic link brings in is not the path it sits at`,
		};
	}
	if (steering.length > 0) {
		const named = steering.slice(0, 3).map((entry) => `${quoteName(entry.path)} (${entry.readBy})`);
		return {
			...judged,
			preAuthorized: false,
			why: `${plural(steering.length, "changed file")} ${noun(steering.length, "steers", "steer")} agents, which only the owner may approve, whatever the scope: ${named.join(", ")}${steering.length > 3 ? ", …" : ""}`,
		};
	}
	if (changes.length > 0)
		return {
			...judged,
			preAuthorized: false,
			why: `this branch changes the gate (${changes.slice(0, 3).join(", ")}${changes.length > 3 ? ", …" : ""}), which only the owner may approve`,
		};
	if (outside.length > 0) {
		return {
			...judged,
			preAuthorized: false,
			why: `${plural(outside.length, "changed file")} ${noun(outside.length, "falls", "fall")} outside the pre-authorized scopes (${outside.slice(0, 3).map(quoteName).join(", ")}${outside.length > 3 ? ", …" : ""})`,
		};
	}
	return { ...judged, preAuthorized: true, authorized, why: "" };
}

/**
 * Ignore files the branch changes: the gate vouches for the committed tree,
 * and what the rules ignore is the jobs' environment, not checked. A branch
 * that ignores `tests/conftest.py` can pass its gate on an uncommitted one:
 * redrawing that line is a change to the gate, for the owner to see.
 */
function ignoreRuleChanges(files: readonly string[]): string[] {
	const changed = files.filter((path) => path === ".gitignore" || path.endsWith("/.gitignore"));
	if (changed.length === 0) return [];
	return [`what the gate leaves to the jobs' environment (${changed.slice(0, 3).map(quoteName).join(", ")}${changed.length > 3 ? ", …" : ""})`];
}

/** The changed paths, and those that are a submodule or a symbolic link on either side (never pre-authorized). */
function filesOf(changes: readonly TreeChange[]): { files: string[]; special: Landing["special"] } {
	const files: string[] = [];
	const special: Landing["special"] = [];
	for (const { path, from, to } of changes) {
		files.push(path);
		if (from === "160000" || to === "160000") special.push({ path, kind: "submodule" });
		else if (from === "120000" || to === "120000") special.push({ path, kind: "symlink" });
	}
	return { files, special };
}

/**
 * What the person consenting is told the branch changes: the Proof's gate
 * changes and the landing's own (what steers agents, ignore rules), once
 * each. The Proof judged the gate's config only; a landing's own findings
 * must never hide behind a Proof that has something to say.
 */
export function landingGateChanges(proven: readonly string[] | undefined, landing: Landing): string[] {
	return [...new Set([...(proven ?? []), ...landing.gateChanges])];
}

/** The gate changes as one plain sentence, or null when the branch leaves the gate alone. */
export function gateChangeSentence(changes: readonly string[]): string | null {
	if (changes.length === 0) return null;
	const shown = changes.slice(0, 8);
	return `This branch changes the gate: ${shown.join(", ")}${changes.length > shown.length ? ` and ${changes.length - shown.length} more` : ""}.`;
}

/** What a landing puts on the trunk, a line each: the preview a person consents to, and the facts beside a refusal. */
export function summaryLines(target: Target, trunk: string, trunkSha: string, head: string, landing: Landing, gateSentence: string | null): string[] {
	const commits = landing.commits.slice(0, 10).map((commit) => `${commit.sha.slice(0, 7)} ${clip(commit.subject, 120)}`);
	const files = landing.files.slice(0, 20).map(quoteName);
	const lines = [
		`Lands \`${clip(target.branch)}\` @ ${short(head)} on \`${clip(trunk)}\` (now ${short(trunkSha)}).`,
		`Commits (${landing.commitsTotal}): ${commits.join("; ") || "none"}${landing.commitsTotal > commits.length ? "; …" : ""}`,
		`Files (${landing.files.length}): ${files.join(", ") || "none"}${landing.files.length > files.length ? ", …" : ""}`,
		`Scopes: ${landing.scopes.join(", ") || "none"}`,
	];
	if (gateSentence) lines.push(gateSentence);
	lines.push(...steeringLines(landing));
	if (landing.special.length > 0)
		lines.push(
			`Needs the owner whatever the scope: ${landing.special.map((entry) => `${quoteName(entry.path)} (${entry.kind === "submodule" ? "submodule pointer" : "symbolic link"})`).join(", ")}`,
		);
	if (landing.preAuthorized)
		lines.push(
			`Pre-authorized by the trunk's [acceptance]: ${landing.authorized.map((entry) => `${quoteName(entry.path)} (scope ${entry.scope})`).join(", ")}`,
		);
	return lines;
}

/**
 * The files that steer agents and their changed lines, a line each, each
 * content line led by its file's name (a line of the file cannot pass for
 * a line of the summary): what the owner reads before consenting.
 */
export function steeringLines(landing: Landing): string[] {
	if (landing.steering.length === 0) return [];
	const named = landing.steering.slice(0, 10).map((entry) => `${quoteName(entry.path)} (${entry.change}; ${entry.readBy})`);
	const lines = [`Steers agents, so needs the owner whatever the scope: ${named.join(", ")}${landing.steering.length > named.length ? ", …" : ""}`];
	for (const entry of landing.steering.slice(0, STEERING_SHOWN)) {
		const name = quoteName(entry.path);
		if (entry.unshown !== null) lines.push(`${name}: lines not shown (${entry.unshown})`);
		else {
			lines.push(...entry.lines.map((line) => `${name} ${line}`));
			if (entry.total > entry.lines.length) lines.push(`${name} … and ${plural(entry.total - entry.lines.length, "more changed line")}`);
		}
	}
	return lines;
}

/**
 * Pre-authorized scopes are the owner's standing consent, and only on a trunk
 * the owner's side names: the main checkout has it checked out, the discern.toml
 * committed on the main checkout's branch names it, or DISCERN_TRUNK does. A trunk
 * only origin/HEAD, init.defaultBranch or a branch naming itself chose (files an
 * agent can make) may be a decoy carrying its own grant: then accept asks.
 */
export function standingConsentOnly(landing: Landing, personNamed: boolean, trunk: Trunk): Landing {
	if (!landing.preAuthorized || personNamed) return landing;
	return {
		...landing,
		preAuthorized: false,
		authorized: [],
		why: `the trunk \`${clip(trunk.name ?? "")}\` was chosen by ${trunkSourceWords(trunk.source)}, not by the main checkout's branch or its committed discern.toml, so its pre-authorized scopes grant nothing`,
	};
}

function trunkSourceWords(source: Trunk["source"]): string {
	switch (source) {
		case "origin_head":
			return "origin/HEAD";
		case "init_default":
			return "init.defaultBranch";
		case "existing_branch":
			return "its name alone";
		default:
			return "a committed discern.toml on a branch other than the main checkout's";
	}
}
