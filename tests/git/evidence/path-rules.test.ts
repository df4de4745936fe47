import { afterAll, describe, expect, test } from "bun:test";
import { refusedByFsck, refusedLinkFolder, refusedName } from "../../../src/git/evidence/path-rules.ts";
import { makeRepo, type TestRepo } from "../../helpers/repo.ts";

/**
 * Which paths git refuses to index: git itself is the oracle (`update-index`,
 * with the NTFS and HFS+ protections both on, as the evidence applies them
 * everywhere).
 */
const made: TestRepo[] = [];
afterAll(async () => {
	await Promise.all(made.map((r) => r.remove()));
});

/** The paths among `paths` that git's update-index refuses to index with `mode`. */
async function gitRefuses(paths: readonly string[], mode: string): Promise<Set<string>> {
	const r = await makeRepo();
	made.push(r);
	const blob = (await r.git("rev-parse", "HEAD:README.md")).trim();
	const child = Bun.spawn(["git", "-c", "core.protectNTFS=true", "-c", "core.protectHFS=true", "update-index", "-z", "--index-info"], {
		cwd: r.root,
		env: { ...process.env, GIT_INDEX_FILE: `${r.root}/.git/oracle-index` },
		stdin: new Blob([paths.map((path) => `${mode} ${blob}\t${path}\0`).join("")]),
		stdout: "pipe",
		stderr: "pipe",
	});
	const [err] = await Promise.all([new Response(child.stderr).text(), child.exited]);
	return new Set(
		err
			.split("\n")
			.filter((line) => line.startsWith("Ignoring path "))
			.map((line) => line.slice("Ignoring path ".length)),
	);
}

const NAMES = [
	// Plain names, and near misses that are ordinary.
	"src",
	"README.md",
	"git",
	".gitx",
	".github",
	"gitx~1",
	"git~2",
	".gi",
	"x.git",
	"GIT",
	"git~",
	"a b",
	"é",
	// .git as NTFS or a case-folding disk reads it.
	".git",
	".GIT",
	".Git",
	".git.",
	".git ",
	".git. .",
	".git:stream",
	".git::$INDEX_ALLOCATION",
	"git~1",
	"GIT~1",
	"git~1.",
	"git~1:x",
	// A backslash is a separator to NTFS: every piece after one is a name (git reads a first backslash as part of the name).
	"x\\.git",
	".git\\x",
	"a\\git~1",
	".GIT.\\y",
	"ab\\.git.",
	"a\\b\\.git",
	"a\\b",
	"\\",
	"a\\.gitx",
	"\\.git",
	"\\git~1",
	"\\\\.git",
	// HFS+ drops zero-width and direction marks, and git's reading of a name stops at U+FFFE and U+FFFF.
	".g\u200cit",
	"\u200e.git",
	".GI\ufeffT",
	".git\u200d",
	".g\u200cit.",
	".gi\u00adt",
	".git\uffff",
	".GIT\ufffe",
	".g\u200cit\uffffzz",
	".gi\uffff",
	"\uffff.git",
	// Names a symbolic link may not take (a file may).
	".gitmodules",
	".GITMODULES",
	".gitmodules.",
	".gitmodules. ",
	".gitmodules:x",
	"gitmod~1",
	"GITMOD~4",
	"gitmod~5",
	"gi7eba~1",
	"gi7eba~9",
	"gi7eb~12",
	"g~123456",
	"gi7ebb~1",
	"x\\.gitmodules",
	".gitmodules\\y",
	".gitmodulesx",
	".g\u200citmodules",
	".gitmodules\uffff",
	"\\.gitmodules",
	"\\gitmod~1",
	"\\gi7eba~1",
	// Rules files a link may stand for: git checks them out (its fsck only warns).
	".gitattributes",
	".GITIGNORE ",
	".mailmap.",
	"gitatt~1",
	"gi7d29~1",
	"gitign~2",
	"mailma~1",
	// Unicode case folds git does not make.
	"\u0130.git",
	".g\u0130t",
	".\u212Ait",
	"\uff47it~1",
];

/** Folders a symbolic link may not sit below: git checks every folder on a path with the link's mode. */
const LINK_FOLDERS = [
	"src",
	".gitmodules",
	".GITMODULES",
	".GitModules",
	".gitmodules:s",
	"gitmod~1:",
	"gi7eba~1:x",
	"a\\.gitmodules:z",
	".g\u200citmodules",
	".gitmodules\uffff",
	"gitmod~1",
	".gitmodules.",
	".gitmodules. ",
	".gitmodulesx",
	"gi7eba~1",
	"\\.gitmodules:z",
	"x\\gitmod~2:",
];

describe("refusedName", () => {
	test("refuses exactly the names git's update-index refuses, for a file, a link and a submodule", async () => {
		for (const mode of ["100644", "120000", "160000"]) {
			const refused = await gitRefuses(NAMES, mode);
			const verdicts = NAMES.map((name) => ({ name, mode, git: refused.has(name), ours: refusedName(name, mode) }));
			expect(verdicts.filter((verdict) => verdict.git !== verdict.ours)).toEqual([]);
			// The oracle is not idle: it refuses some names of every mode.
			expect(refused.size).toBeGreaterThan(10);
		}
	});
});

describe("refusedLinkFolder", () => {
	test("refuses exactly the folders git refuses a symbolic link below; a file below them is git's to take", async () => {
		const links = await gitRefuses(
			LINK_FOLDERS.map((folder) => `${folder}/x`),
			"120000",
		);
		const verdicts = LINK_FOLDERS.map((folder) => ({ folder, git: links.has(`${folder}/x`), ours: refusedLinkFolder(folder) }));
		expect(verdicts.filter((verdict) => verdict.git !== verdict.ours)).toEqual([]);
		expect(links.size).toBeGreaterThan(5);
		// A file below the same folders is refused only where its folder reads as .git (none of these do).
		expect([
			...(await gitRefuses(
				LINK_FOLDERS.map((folder) => `${folder}/x`),
				"100644",
			)),
		]).toEqual([]);
	});
});

/** The names among `names` that git's fsck rejects as an entry of `mode` ("40000" a folder, "160000" a submodule) where a file of its settings belongs. */
async function fsckRejects(names: readonly string[], mode: "40000" | "160000"): Promise<Set<string>> {
	const r = await makeRepo();
	made.push(r);
	const run = async (args: string[], input: string) => {
		const child = Bun.spawn(["git", ...args], { cwd: r.root, stdin: new Blob([input]), stdout: "pipe", stderr: "pipe" });
		const [out] = await Promise.all([new Response(child.stdout).text(), child.exited]);
		return out.trim();
	};
	// Each name points at an object of its own (fsck reports the object found there), kept reachable by a branch.
	const objectOf = new Map<string, string>();
	for (const [n, name] of names.entries()) {
		const blob = await run(["hash-object", "-w", "--stdin"], `${n}\n`);
		const inner = await run(["mktree"], `100644 blob ${blob}\tf\n`);
		const object = mode === "40000" ? inner : await run(["commit-tree", inner, "-m", `${n}`], "");
		const tree = await run(["mktree", "--missing"], `${mode === "40000" ? "040000 tree" : "160000 commit"} ${object}\t${name}\n`);
		await r.git("update-ref", `refs/heads/case-${n}`, await run(["commit-tree", tree, "-m", "case"], ""));
		// A submodule's commit is not reachable through a gitlink: a branch of its own keeps it for fsck to read.
		if (mode === "160000") await r.git("update-ref", `refs/heads/object-${n}`, object);
		objectOf.set(object, name);
	}
	const fsck = Bun.spawn(["git", "fsck", "--no-dangling"], { cwd: r.root, stdout: "pipe", stderr: "pipe" });
	const [out, err] = await Promise.all([new Response(fsck.stdout).text(), new Response(fsck.stderr).text(), fsck.exited]);
	const rejected = new Set<string>();
	for (const line of `${out}\n${err}`.split("\n")) {
		const id = / ([0-9a-f]{40}): git(?:modules|attributes)Blob/.exec(line)?.[1];
		if (id && objectOf.has(id)) rejected.add(objectOf.get(id) as string);
	}
	return rejected;
}

const GITMODULES_SPELLINGS = [
	"src",
	".gitmodules",
	".GITMODULES",
	".GitModules",
	".gitmodules.",
	".gitmodules. ",
	".gitmodules:x",
	"gitmod~1",
	"GITMOD~4",
	"gitmod~5",
	"gi7eba~1",
	"gi7eba~9",
	"gi7eb~12",
	"gi7ebb~1",
	".gitmodulesx",
	".g\u200citmodules",
	".gitmodules\uffff",
	"x\\.gitmodules",
	"\\.gitmodules",
	"a\\b\\gitmod~1",
	"x\\.gitmodulesx",
	".gitattributes",
	".GitAttributes.",
	"gitatt~1",
	"gi7d29~1",
	"gi7d29~12",
	".g\u200citattributes",
	"x\\gitatt~2",
	".gitattributesx",
	".gitignore",
	"gitign~1",
];

describe("refusedByFsck", () => {
	test("refuses exactly the folders and submodules git's fsck rejects where .gitmodules or .gitattributes belongs", async () => {
		for (const mode of ["40000", "160000"] as const) {
			const rejected = await fsckRejects(GITMODULES_SPELLINGS, mode);
			const verdicts = GITMODULES_SPELLINGS.map((name) => ({ name, mode, git: rejected.has(name), ours: refusedByFsck(name, mode) }));
			expect(verdicts.filter((verdict) => verdict.git !== verdict.ours)).toEqual([]);
			expect(rejected.size).toBeGreaterThan(5);
		}
		// A file of those names is git's settings themselves: fsck reads it, a Proof may hold it.
		expect(GITMODULES_SPELLINGS.filter((name) => refusedByFsck(name, "100644"))).toEqual([]);
	});
});
