import { describe, expect, test } from "bun:test";
import { parsePorcelainV2 } from "../../src/git/status.ts";
import { decideTrunk } from "../../src/git/trunk.ts";

describe("parsePorcelainV2", () => {
	test("branch headers, ordinary, renamed, unmerged and untracked entries", () => {
		const output = [
			"# branch.oid 1234567890abcdef1234567890abcdef12345678",
			"# branch.head feature/x",
			"1 .M N... 100644 100644 100644 aaa bbb src/a file.ts",
			"1 A. N... 000000 100644 100644 000 ccc added.ts",
			"2 R. N... 100644 100644 100644 ddd ddd R100 new name.ts",
			"old name.ts",
			"u UU N... 100644 100644 100644 100644 e f g conflicted.ts",
			"? untracked dir/",
			"",
		].join("\0");
		const state = parsePorcelainV2(output);
		expect(state.head).toBe("1234567890abcdef1234567890abcdef12345678");
		expect(state.branch).toBe("feature/x");
		expect(state.changes).toEqual([
			{ path: "src/a file.ts", kind: "modified", staged: false },
			{ path: "added.ts", kind: "added", staged: true },
			{ path: "new name.ts", kind: "renamed", staged: true },
			{ path: "conflicted.ts", kind: "conflicted", staged: false },
			{ path: "untracked dir/", kind: "untracked", staged: false },
		]);
	});

	test("an unborn, detached repository", () => {
		const state = parsePorcelainV2("# branch.oid (initial)\0# branch.head (detached)\0");
		expect(state).toEqual({ head: null, branch: null, changes: [] });
	});
});

describe("decideTrunk", () => {
	const clues = (branches: string[], originHead: string | null = null, initDefault: string | null = null) => ({
		localBranches: new Map(branches.map((name) => [name, `sha-of-${name}`])),
		originHead,
		initDefault,
	});

	// DISCERN_TRUNK and the committed [repository].trunk come first: src/trunk/resolve.ts asks these clues only after them (tests/trunk/).
	test("git's clues: origin/HEAD, then init.defaultBranch, then main/master", () => {
		expect(decideTrunk(clues(["main", "trunk"], "trunk")).name).toBe("trunk");
		expect(decideTrunk(clues(["main", "stable"], null, "stable"))).toEqual({
			name: "stable",
			source: "init_default",
			exists: true,
			sha: "sha-of-stable",
		});
		expect(decideTrunk(clues(["master"]))).toEqual({ name: "master", source: "existing_branch", exists: true, sha: "sha-of-master" });
	});

	test("an init.defaultBranch without a branch loses to an existing main", () => {
		expect(decideTrunk(clues(["main"], null, "trunk")).name).toBe("main");
	});

	test("nothing to go on", () => {
		expect(decideTrunk(clues([]))).toEqual({ name: null, source: "none", exists: false });
		expect(decideTrunk(clues([], null, "main"))).toEqual({ name: "main", source: "init_default", exists: false });
	});
});
