import { git } from "./run.ts";

/** One commit as a person reads it in a list. */
export interface LoggedCommit {
	sha: string;
	subject: string;
}

/**
 * The commits `to` has that `from` has not (`git log from..to`), newest
 * first, each with its subject; null when git could not list them.
 */
export async function commitsBetween(root: string, from: string, to: string): Promise<LoggedCommit[] | null> {
	// `--` keeps git from reading the range as a path.
	const log = await git(["log", "-z", "--format=%H%x00%s", `${from}..${to}`, "--"], root);
	return log.exitCode === 0 ? parseCommitLog(log.stdout) : null;
}

/** `git log -z --format=%H%x00%s`: sha, subject, sha, subject … separated by NULs (a newline before a sha is not part of it). */
function parseCommitLog(output: string): LoggedCommit[] {
	const fields = output.split("\0");
	const commits: LoggedCommit[] = [];
	for (let i = 0; i + 1 < fields.length; i += 2) {
		const sha = (fields[i] ?? "").replace(/^\n/, "");
		if (sha) commits.push({ sha, subject: fields[i + 1] ?? "" });
	}
	return commits;
}
