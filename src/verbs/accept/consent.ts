import { parseConfig } from "../../config/load.ts";
import { git } from "../../git/run.ts";
import { compileScopes } from "../../scopes/glob.ts";

/** What landing would bring to the trunk, and whether the trunk's own config lets it land without asking. */
export interface Landing {
	commits: { sha: string; subject: string }[];
	commitsTotal: number;
	files: string[];
	/** False when git could not list the changes: nothing is then pre-authorized. */
	complete: boolean;
	/** Scopes (of the trunk's config) the changed files fall in. */
	scopes: string[];
	/** Every changed path falls in a scope the trunk's committed `[acceptance].pre_authorized` lists. */
	preAuthorized: boolean;
	/** Why not, when not (for the message). */
	why: string;
}

const CAP = 50;

/**
 * Read what `head` would bring onto the trunk at `trunkSha`, and judge
 * pre-authorization by the trunk's committed discern.toml at that exact
 * commit: the branch's copy is the thing being judged, so it can never
 * grant itself authority (nor redraw a scope's paths to fit).
 */
export async function readLanding(root: string, trunkSha: string, head: string): Promise<Landing> {
	const [log, diff, shown] = await Promise.all([
		git(["log", "-z", "--format=%H%x00%s", `${trunkSha}..${head}`, "--"], root),
		git(["diff", "--name-only", "-z", "--no-renames", "--ignore-submodules=none", `${trunkSha}...${head}`, "--"], root),
		git(["show", `${trunkSha}:discern.toml`], root),
	]);
	const fields = log.exitCode === 0 ? log.stdout.split("\0") : [];
	const commits: Landing["commits"] = [];
	for (let i = 0; i + 1 < fields.length; i += 2) {
		const sha = (fields[i] ?? "").replace(/^\n/, "");
		if (sha) commits.push({ sha, subject: fields[i + 1] ?? "" });
	}
	const complete = log.exitCode === 0 && diff.exitCode === 0;
	const files = diff.exitCode === 0 ? diff.stdout.split("\0").filter((path) => path !== "") : [];
	const base = { commits: commits.slice(0, CAP), commitsTotal: commits.length, files, complete };
	if (!complete) return { ...base, scopes: [], preAuthorized: false, why: "git could not list the changes" };
	if (shown.exitCode !== 0) return { ...base, scopes: [], preAuthorized: false, why: "the trunk has no committed discern.toml" };
	const parsed = parseConfig(shown.stdout);
	if (!parsed.ok) return { ...base, scopes: [], preAuthorized: false, why: "the trunk's committed discern.toml does not validate" };
	const { config } = parsed;
	let classifier: ReturnType<typeof compileScopes>;
	try {
		classifier = compileScopes(config.scopes);
	} catch {
		return { ...base, scopes: [], preAuthorized: false, why: "the trunk's scopes do not compile" };
	}
	const allowed = new Set(config.acceptance.pre_authorized);
	const touched = new Set<number>();
	const outside: string[] = [];
	for (const path of files) {
		const own = classifier.scopesOf(path);
		for (const index of own) touched.add(index);
		if (!own.some((index) => allowed.has(classifier.scopes[index]?.name ?? ""))) outside.push(path);
	}
	const scopes = classifier.scopes.filter((_, index) => touched.has(index)).map((scope) => scope.name);
	if (allowed.size === 0) return { ...base, scopes, preAuthorized: false, why: "the trunk's discern.toml pre-authorizes no scope" };
	if (files.length === 0) return { ...base, scopes, preAuthorized: false, why: "the branch changes no file" };
	if (outside.length > 0) return { ...base, scopes, preAuthorized: false, why: `${outside.length} changed file${outside.length === 1 ? "" : "s"} fall outside the pre-authorized scopes (${outside.slice(0, 3).join(", ")})` };
	return { ...base, scopes, preAuthorized: true, why: "" };
}
