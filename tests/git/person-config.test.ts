import { afterEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { readFile, rm, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { configEnv, overridesFrom } from "../../src/git/person-config.ts";
import { runDiscern } from "../helpers/cli.ts";
import { makeTempDir, runGit } from "../helpers/repo.ts";
import { makeWorktreeRepo, type WorktreeRepo } from "../helpers/worktree.ts";

/**
 * git that discern runs for a person never starts a program the
 * repository's own configuration names (local `.git/config`, and what it
 * includes): an agent can write those. Each instance plants a command that
 * appends to a marker file and asserts the marker was never written; the
 * person's global configuration keeps working.
 */
const CONFIG = `[jobs]
test = "true"

[scopes.all]
paths = ["**"]

[acceptance]
pre_authorized = ["all"]
`;

const made: string[] = [];
afterEach(async () => {
	await Promise.all(made.splice(0).map((path) => rm(path, { recursive: true, force: true })));
});

interface Planted {
	repo: WorktreeRepo;
	/** Where a planted command writes; must never exist. */
	marker: string;
	/** A command (a script of its own, run with `word`: also as a program without a shell) that records `word` in the marker, then passes stdin through. */
	plant: (word: string) => string;
	/** The person's own home, with a global config of theirs. */
	home: string;
	discern: (cwd: string, ...args: string[]) => Promise<{ exitCode: number; json: Record<string, unknown> }>;
}

async function planted(files: Record<string, string> = { "README.md": "# fixture\n" }): Promise<Planted> {
	const repo = await makeWorktreeRepo({ config: CONFIG, files, id: "x" });
	const scratch = await makeTempDir("discern-planted-");
	made.push(...repo.cleanupDirs, scratch);
	const home = join(scratch, "home");
	await Bun.write(join(home, ".gitconfig"), "[user]\n\tname = Person\n\temail = person@example.com\n");
	const marker = join(scratch, "PWNED");
	const script = join(scratch, "planted.sh");
	await writeFile(script, `#!/bin/sh\necho "$1" >> '${marker}'\ncat\n`, { mode: 0o755 });
	const plant = (word: string) => `${script} ${word}`;
	const env = { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), GIT_CONFIG_NOSYSTEM: "1" };
	const discern = async (cwd: string, ...args: string[]) => {
		const run = await runDiscern([...args, "--json"], { cwd, env });
		return { exitCode: run.exitCode, json: JSON.parse(run.stdout) as Record<string, unknown> };
	};
	return { repo, marker, plant, home, discern };
}

/** Touch a tracked file: its stat no longer matches the index, so git compares content (and would run a clean filter). */
async function touch(path: string): Promise<void> {
	const later = new Date(Date.now() + 5000);
	await utimes(path, later, later);
}

async function expectNeverRan(marker: string): Promise<void> {
	expect(existsSync(marker) ? await readFile(marker, "utf8") : "never ran").toBe("never ran");
}

/** The verbs that read the main checkout's worktrees (status, worktree list, prune and drop dry runs), each followed by the check. */
async function readersNeverRunIt(discern: (cwd: string, ...args: string[]) => Promise<unknown>, root: string, marker: string): Promise<void> {
	for (const args of [["status"], ["worktree", "list"], ["worktree", "prune", "--dry-run"], ["worktree", "drop", "x", "--dry-run"]]) {
		await discern(root, ...args);
		await expectNeverRan(marker);
	}
}

describe("a clean filter the repository's config names never runs", () => {
	for (const via of ["core.attributesFile", "a committed .gitattributes"] as const) {
		test(`status, worktree list, prune, drop and accept, with the filter reached through ${via}`, async () => {
			const { repo, marker, plant, discern } = await planted();
			if (via === "core.attributesFile") {
				const attributes = join(repo.cleanupDirs[1] ?? repo.root, "attrs");
				await writeFile(attributes, "* filter=pw\n");
				await repo.wtGit("config", "core.attributesFile", attributes);
			} else {
				await repo.wtWrite(".gitattributes", "* filter=pw\n");
			}
			await repo.wtWrite("notes.md", "# notes\n");
			await repo.wtCommit("work");
			await repo.wtGit("config", "filter.pw.clean", plant("clean"));
			await touch(join(repo.wt, "README.md"));
			await touch(join(repo.wt, "notes.md"));
			await touch(join(repo.root, "README.md"));

			await readersNeverRunIt(discern, repo.root, marker);
			await discern(repo.root, "accept", "--target", "x");
			await expectNeverRan(marker);
		});
	}

	test("a filter defined in a file the local config includes", async () => {
		const { repo, marker, plant, discern } = await planted();
		await repo.wtWrite(".gitattributes", "* filter=pw\n");
		await repo.wtCommit("attributes");
		const included = join(repo.cleanupDirs[1] ?? repo.root, "included");
		await writeFile(included, `[filter "pw"]\n\tclean = "${plant("included")}"\n\tprocess = "${plant("process")}"\n\trequired = true\n`);
		await repo.wtGit("config", "include.path", included);
		await touch(join(repo.wt, "README.md"));
		const status = await discern(repo.wt, "status");
		expect(status.exitCode).toBe(0);
		await discern(repo.root, "worktree", "list");
		await expectNeverRan(marker);
	});
	test("a filter in the worktree's own config.worktree", async () => {
		const { repo, marker, plant, discern } = await planted();
		await repo.wtWrite(".gitattributes", "* filter=pw\n");
		await repo.wtCommit("attributes");
		await repo.wtGit("config", "extensions.worktreeConfig", "true");
		await repo.wtGit("config", "--worktree", "filter.pw.clean", plant("worktree"));
		await touch(join(repo.wt, "README.md"));
		await discern(repo.wt, "status");
		await discern(repo.root, "worktree", "list");
		await expectNeverRan(marker);
	});

	test("a filter under a section name in capitals (git reads section names in any case)", async () => {
		const { repo, marker, plant, discern } = await planted();
		await repo.wtWrite(".gitattributes", "* filter=up\n");
		await repo.wtCommit("attributes");
		// The fixture's own `commit.gpgsign = false` would have git read the configuration anyway.
		await repo.git("config", "--unset", "commit.gpgsign");
		await writeFile(join(repo.root, ".git", "config"), `[FILTER "up"]\n\tCLEAN = "${plant("capitals")}"\n`, { flag: "a" });
		expect((await repo.wtGit("config", "--get", "filter.up.clean")).trim()).toBe(plant("capitals"));
		await touch(join(repo.wt, "README.md"));
		await discern(repo.wt, "status");
		await discern(repo.root, "worktree", "list");
		await expectNeverRan(marker);
	});
});

describe("a submodule's own configuration", () => {
	test("a clean filter in a nested repository's own .git/config never runs for status, worktree list, prune or drop", async () => {
		const { repo, marker, plant, discern } = await planted();
		const sub = join(repo.wt, "sub");
		await repo.wtWrite("sub/f.txt", "a\n");
		await repo.wtWrite("sub/.gitattributes", "* filter=ev\n");
		const subGit = (...args: string[]) => runGit(sub, args);
		await subGit("init", "-q");
		await subGit("add", "-A");
		await subGit("-c", "user.name=T", "-c", "user.email=t@e", "commit", "-qm", "sub");
		await subGit("config", "filter.ev.clean", plant("submodule"));
		// Recorded as a gitlink in the worktree's commit, then edited: git's own status would look inside with its config.
		await repo.wtGit("add", "sub");
		await repo.wtGit("commit", "-qm", "sub");
		await writeFile(join(sub, "f.txt"), "a\nb\n");

		const here = await discern(repo.wt, "status");
		await expectNeverRan(marker);
		// Its edit is work all the same, as done says.
		expect((here.json.data as { clean: boolean }).clean).toBe(false);
		await readersNeverRunIt(discern, repo.root, marker);
	});

	test("a clean filter in the config of a submodule's own submodule never runs, and its edit is still work", async () => {
		const { repo, marker, plant, discern } = await planted();
		const commitIn = async (folder: string) => {
			await runGit(folder, ["add", "-A"]);
			await runGit(folder, ["-c", "user.name=T", "-c", "user.email=t@e", "commit", "-qm", "c"]);
		};
		const inner = join(repo.wt, "sub", "inner");
		await repo.wtWrite("sub/inner/f.txt", "a\n");
		await repo.wtWrite("sub/inner/.gitattributes", "* filter=ev\n");
		await runGit(inner, ["init", "-q"]);
		await commitIn(inner);
		await runGit(inner, ["config", "filter.ev.clean", plant("inner")]);
		await runGit(join(repo.wt, "sub"), ["init", "-q"]);
		await commitIn(join(repo.wt, "sub"));
		await repo.wtGit("add", "sub");
		await repo.wtGit("commit", "-qm", "sub");
		await writeFile(join(inner, "f.txt"), "a\nb\n");

		const here = await discern(repo.wt, "status");
		await expectNeverRan(marker);
		expect((here.json.data as { clean: boolean }).clean).toBe(false);
		await discern(repo.root, "worktree", "list");
		await expectNeverRan(marker);
	});

	test("a filter a registered submodule's .git/modules config and info/attributes name never runs during accept", async () => {
		const { repo, marker, plant, discern } = await planted();
		const library = await makeWorktreeRepo({ files: { "lib.txt": "lib\n" } });
		made.push(...library.cleanupDirs);
		await repo.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", library.root, "lib");
		await repo.commitAll("add lib");
		const modules = join(repo.root, ".git", "modules", "lib");
		await Bun.write(join(modules, "info", "attributes"), "* filter=ev\n");
		await runGit(join(repo.root, "lib"), ["config", "filter.ev.clean", plant("modules")]);
		await touch(join(repo.root, "lib", "lib.txt"));
		await repo.wtGit("merge", "-q", "main");
		await repo.wtWrite("landed.md", "# landed\n");
		await repo.wtCommit("land a file");
		const accepted = await discern(repo.wt, "accept");
		expect(accepted.json.ok, JSON.stringify(accepted.json).slice(0, 600)).toBe(true);
		await expectNeverRan(marker);
		await discern(repo.root, "status");
		await expectNeverRan(marker);
	});
});

describe("accept's fast-forward in the main checkout", () => {
	test("a smudge filter only the repository's config names does not run: the blob's stored bytes land", async () => {
		const { repo, marker, discern } = await planted();
		const agents = join(repo.root, "AGENTS.md");
		// Attributes through core.attributesFile: done's evidence reads only committed ones, accept's checkout read this too.
		const attributes = join(repo.cleanupDirs[1] ?? repo.root, "attrs");
		await writeFile(attributes, "*.txt filter=pw\n");
		await repo.wtGit("config", "core.attributesFile", attributes);
		await repo.wtGit("config", "filter.pw.smudge", `sh -c 'echo smudge >> ${marker}; echo "# injected" >> ${agents}; tr a-z A-Z'`);
		await repo.wtWrite("landed.txt", "plain words\n");
		await repo.wtCommit("add a text file");
		const accepted = await discern(repo.wt, "accept");
		expect(accepted.json.ok, JSON.stringify(accepted.json).slice(0, 600)).toBe(true);
		await expectNeverRan(marker);
		expect(existsSync(agents)).toBe(false);
		expect(await readFile(join(repo.root, "landed.txt"), "utf8")).toBe("plain words\n");
	});

	test("a filter the person's global config defines still smudges, whatever the repository's config says of it", async () => {
		const { repo, marker, plant, home, discern } = await planted();
		// The person's own attributes and filter, in their global config (as `git lfs install` writes its filter).
		await writeFile(join(home, "attributes"), "*.txt filter=up\n");
		await writeFile(
			join(home, ".gitconfig"),
			`[user]\n\tname = Person\n\temail = person@example.com\n[core]\n\tattributesFile = ${join(home, "attributes")}\n[filter "up"]\n\tsmudge = tr a-z A-Z\n\tclean = tr A-Z a-z\n`,
		);
		await repo.wtGit("config", "filter.up.smudge", plant("smudge"));
		await repo.wtGit("config", "core.attributesFile", "/dev/null");
		await repo.wtWrite("landed.txt", "plain words\n");
		await repo.wtCommit("add a text file");
		const accepted = await discern(repo.wt, "accept");
		expect(accepted.json.ok, JSON.stringify(accepted.json).slice(0, 600)).toBe(true);
		await expectNeverRan(marker);
		expect(await readFile(join(repo.root, "landed.txt"), "utf8")).toBe("PLAIN WORDS\n");
	});
});

describe("merges discern makes", () => {
	test("update's merge does not run a merge driver the repository names", async () => {
		const { repo, marker, plant, discern } = await planted({ "README.md": "# fixture\n", "shared.md": "one\n", ".gitattributes": "* merge=pw\n" });
		await repo.wtGit("config", "merge.pw.driver", plant("merge"));
		await repo.write("shared.md", "trunk\n");
		await repo.commitAll("trunk edit");
		await repo.wtWrite("shared.md", "branch\n");
		await repo.wtCommit("branch edit");
		const updated = await discern(repo.wt, "update");
		expect(updated.json.ok).toBe(false);
		expect(updated.json.error).toBe("conflict");
		await expectNeverRan(marker);
	});
});

describe("the settings given back", () => {
	test("the person's value where their scopes set the key, else one that starts nothing", () => {
		const listing = [
			["global", "filter.lfs.process\ngit-lfs filter-process"],
			["local", "filter.lfs.process\nevil"],
			["local", "filter.pw.clean\nevil"],
			["worktree", "filter.pw.required"],
			["local", "merge.pw.driver\nevil"],
			["local", "core.attributesfile\n/tmp/attrs"],
			["local", "gpg.program\nevil"],
			["local", "commit.gpgsign\ntrue"],
			["global", "gpg.program\ngpg2"],
		]
			.map(([scope, entry]) => `${scope}\0${entry}\0`)
			.join("");
		expect(overridesFrom(listing, { HOME: "/home/p" })).toEqual([
			["commit.gpgsign", "false"],
			["core.attributesfile", "/home/p/.config/git/attributes"],
			["filter.lfs.process", "git-lfs filter-process"],
			["filter.pw.clean", ""],
			["filter.pw.required", "false"],
			["gpg.program", "gpg2"],
			["merge.pw.driver", "exit 1"],
		]);
		expect(configEnv([["a.b", "c"]], { GIT_CONFIG_COUNT: "2" })).toEqual({ GIT_CONFIG_COUNT: "3", GIT_CONFIG_KEY_2: "a.b", GIT_CONFIG_VALUE_2: "c" });
	});
});
