import { afterAll, describe, expect, test } from "bun:test";
import { refusedName } from "../../src/git/path-rules.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";

/**
 * Which tree entry names git refuses to index: git itself is the oracle
 * (`update-index`, with the NTFS and HFS+ protections both on, as the
 * evidence applies them everywhere).
 */
const made: TestRepo[] = [];
afterAll(async () => {
	await Promise.all(made.map((r) => r.remove()));
});

const NAMES = [
	// Plain names, and near misses that are ordinary.
	"src", "README.md", "git", ".gitx", ".github", "gitx~1", "git~2", ".gi", "x.git", "GIT", "git~", "a b", "é",
	// .git as NTFS or a case-folding disk reads it.
	".git", ".GIT", ".Git", ".git.", ".git ", ".git. .", ".git:stream", ".git::$INDEX_ALLOCATION", "git~1", "GIT~1", "git~1.", "git~1:x",
	// A backslash is a separator to NTFS: every piece after one is a name.
	"x\\.git", ".git\\x", "a\\git~1", ".GIT.\\y", "ab\\.git.", "a\\b\\.git", "a\\b", "\\", "a\\.gitx",
	// HFS+ drops zero-width and direction marks.
	".g\u200cit", "\u200e.git", ".GI\ufeffT", ".git\u200d", ".g\u200cit.", ".gi\u00adt",
	// Names a symbolic link may not take (a file may).
	".gitmodules", ".GITMODULES", ".gitmodules.", ".gitmodules. ", ".gitmodules:x", "gitmod~1", "GITMOD~4", "gitmod~5", "gi7eba~1", "gi7eba~9", "gi7eb~12", "g~123456", "gi7ebb~1",
	"x\\.gitmodules", ".gitmodules\\y", ".gitmodulesx", ".g\u200citmodules",
];

describe("refusedName", () => {
	test("refuses exactly the names git's update-index refuses", async () => {
		const r = await makeRepo();
		made.push(r);
		const blob = (await r.git("rev-parse", "HEAD:README.md")).trim();
		for (const mode of ["100644", "120000", "160000"]) {
			const child = Bun.spawn(["git", "-c", "core.protectNTFS=true", "-c", "core.protectHFS=true", "update-index", "-z", "--index-info"], {
				cwd: r.root,
				env: { ...process.env, GIT_INDEX_FILE: `${r.root}/.git/oracle-${mode}` },
				stdin: new Blob([NAMES.map((name) => `${mode} ${blob}\t${name}\0`).join("")]),
				stdout: "pipe",
				stderr: "pipe",
			});
			const [err] = await Promise.all([new Response(child.stderr).text(), child.exited]);
			const gitRefused = new Set(
				err
					.split("\n")
					.filter((line) => line.startsWith("Ignoring path "))
					.map((line) => line.slice("Ignoring path ".length)),
			);
			const verdicts = NAMES.map((name) => ({ name, mode, git: gitRefused.has(name), ours: refusedName(name, mode) }));
			expect(verdicts.filter((verdict) => verdict.git !== verdict.ours)).toEqual([]);
			// The oracle is not idle: it refuses some names of every mode.
			expect(gitRefused.size).toBeGreaterThan(10);
		}
	});

	test("a link is also refused where git reads .gitattributes, .gitignore or .mailmap (git's fsck flags those), a file is not", () => {
		for (const name of [".gitattributes", ".GITIGNORE ", ".mailmap.", "gitatt~1", "gi7d29~1", "gitign~2", "gi250a~3", "mailma~1", "maba30~1", "x\\.gitignore", ".git\u200cignore"]) {
			expect({ name, refused: refusedName(name, "120000") }).toEqual({ name, refused: true });
			expect({ name, refused: refusedName(name, "100644") }).toEqual({ name, refused: false });
		}
	});
});
