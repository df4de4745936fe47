import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { onlyJson, runDiscern } from "../helpers/cli.ts";
import { invokeVerb } from "../helpers/invoke.ts";
import { connectInMemory } from "../helpers/mcp.ts";
import { BASIC_CONFIG, makeRepo, makeTempDir, type TestRepo } from "../helpers/repo.ts";
import { expectValidEnvelope } from "../helpers/schema.ts";

/**
 * The map verb over a real repository: regions from the working tree,
 * freshness numbers checked against git's own answers, pages, search, and
 * every way a target might try to leave the map folder.
 */
let repo: TestRepo;
let outside: string;

/** Commit everything with a chosen date, so freshness is exact. */
async function commitAt(repository: TestRepo, date: string, message: string): Promise<void> {
	const env = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date };
	for (const args of [
		["add", "-A"],
		["commit", "-q", "-m", message],
	]) {
		const child = Bun.spawn(["git", ...args], { cwd: repository.root, env, stdout: "ignore", stderr: "pipe" });
		if ((await child.exited) !== 0) throw new Error(`git ${args.join(" ")} failed: ${await new Response(child.stderr).text()}`);
	}
}

const API_README = `# API

The HTTP API: routes, handlers and authentication.

Start with [the routes](../../../src/api/routes.ts) and [auth](<../../../src/api/auth.ts#L3> "the handler").
`;

const AUTH_PAGE = `# Authentication

How a request proves who sent it: a bearer token checked by the handler.

## Tokens

Tokens are signed; see [the handler][handler] and the [spec](https://example.com/spec) and [below](#tokens).

[handler]: ../../../src/api/auth.ts
[util]: ../../../lib/util.ts
`;

beforeAll(async () => {
	outside = await makeTempDir("discern-map-outside-");
	await writeFile(join(outside, "secret.md"), "# Secret\n\nNot for the map.\n");
	repo = await makeRepo({ config: BASIC_CONFIG, commit: false });
	await repo.write("src/api/routes.ts", "export const routes = 1;\n");
	await repo.write("src/api/auth.ts", "export const auth = 1;\n");
	await repo.write("src/web/app.ts", "export const app = 1;\n");
	await repo.write("lib/util.ts", "export const util = 1;\n");
	await repo.write("docs/secret.md", "# Docs secret\n\nOutside the map folder.\n");
	await repo.write("docs/map/README.md", "# Project map\n\nThe map of the fixture.\n");
	await repo.write("docs/map/api/README.md", API_README);
	await repo.write("docs/map/api/auth.md", AUTH_PAGE);
	await repo.write("docs/map/web/README.md", "# Web\n\nThe browser app, served from [app](/src/web/app.ts).\n");
	await repo.write("docs/map/web/pages/home.md", "# Home page\n\nThe landing page; it calls the API with a token.\n");
	await repo.write("docs/map/_internal/notes.md", "# Notes\n\nInternal notes about tokens.\n");
	await repo.write("docs/map/notes.txt", "not markdown\n");
	await commitAt(repo, "2026-01-01T10:00:00Z", "initial");
	await repo.write("docs/map/web/README.md", "# Web\n\nThe browser app, served from [app](/src/web/app.ts) and [lib](../../../lib/util.ts).\n");
	await commitAt(repo, "2026-01-02T10:00:00Z", "web docs");
	await repo.write("src/api/auth.ts", "export const auth = 2;\n");
	await commitAt(repo, "2026-01-03T10:00:00Z", "auth code");
	await repo.write("src/api/routes.ts", "export const routes = 2;\n");
	await repo.write("lib/util.ts", "export const util = 2;\n");
	await commitAt(repo, "2026-01-04T10:00:00Z", "routes and util");
	await repo.write("src/web/other.ts", "export const other = 1;\n");
	await commitAt(repo, "2026-01-05T10:00:00Z", "unrelated code");
	// Links, in the working tree only: one leaves the map, two stay inside it.
	await symlink(join(outside, "secret.md"), join(repo.root, "docs/map/leak.md"));
	await symlink(outside, join(repo.root, "docs/map/ext"));
	await symlink(join(repo.root, "docs/map/api/auth.md"), join(repo.root, "docs/map/alias.md"));
	await symlink(join(repo.root, "docs/map/api"), join(repo.root, "docs/map/api-link"));
});
afterAll(async () => {
	await repo.remove();
	await rm(outside, { recursive: true, force: true });
});

/** A result read loosely: tests look at `error` whatever the outcome. */
type Loose = { ok: boolean; message: string; error?: string; hints?: string[]; data?: unknown };

async function core(input: Record<string, unknown> = {}, cwd = repo.root): Promise<Loose> {
	const result = await invokeVerb("map", { ...repo.ctx(), cwd }, input);
	expectValidEnvelope("map", result);
	return result as Loose;
}

async function run(where: TestRepo, input: Record<string, unknown>): Promise<Loose> {
	const result = await invokeVerb("map", where.ctx(), input);
	expectValidEnvelope("map", result);
	return result as Loose;
}

type Digest = {
	mode: "digest";
	dir: string;
	regions: {
		name: string;
		title: string;
		description: string;
		pages: number;
		last_changed: string | null;
		linked_paths: number;
		commits_since: number | null;
	}[];
};

describe("the regions digest", () => {
	test("lists top-level folders except internal ones and links leaving the map, with README title and description", async () => {
		const result = await core();
		expect(result.ok).toBe(true);
		const data = result.data as Digest;
		expect(data.dir).toBe("docs/map/");
		// `ext` points outside: not a region. `api-link` resolves inside, so it is one.
		expect(data.regions.map((region) => region.name)).toEqual(["api", "api-link", "web"]);
		const api = data.regions.find((region) => region.name === "api");
		expect(api).toMatchObject({ title: "API", description: "The HTTP API: routes, handlers and authentication.", pages: 2, linked_paths: 3 });
		const web = data.regions.find((region) => region.name === "web");
		expect(web).toMatchObject({ title: "Web", pages: 2, linked_paths: 2 });
	});

	test("freshness is what git says: the last change to the region, and commits since to the code it links to", async () => {
		const data = (await core()).data as Digest;
		for (const [name, linked] of [
			["api", ["src/api/auth.ts", "src/api/routes.ts", "lib/util.ts"]],
			["web", ["src/web/app.ts", "lib/util.ts"]],
		] as const) {
			const region = data.regions.find((candidate) => candidate.name === name);
			const [hash, date] = (await repo.git("log", "-1", "--format=%H %cI", "--", `docs/map/${name}`)).trim().split(" ");
			const since = Number((await repo.git("rev-list", "--count", `${hash}..HEAD`, "--", ...linked)).trim());
			expect({ name, last_changed: region?.last_changed, commits_since: region?.commits_since }).toEqual({ name, last_changed: date, commits_since: since });
		}
		// The numbers themselves: api last changed on the 1st, then auth (3rd) and routes+util (4th); web on the 2nd, then util (4th).
		expect(data.regions.find((region) => region.name === "api")?.commits_since).toBe(2);
		expect(data.regions.find((region) => region.name === "web")?.commits_since).toBe(1);
		expect(data.regions.find((region) => region.name === "web")?.last_changed).toStartWith("2026-01-02T10:00:00");
	});

	test("a region never committed has no freshness facts", async () => {
		await repo.write("docs/map/fresh/README.md", "# Fresh\n\nNot committed yet.\n");
		try {
			const region = ((await core()).data as Digest).regions.find((candidate) => candidate.name === "fresh");
			expect(region).toMatchObject({ pages: 1, last_changed: null, commits_since: null });
		} finally {
			await rm(join(repo.root, "docs/map/fresh"), { recursive: true, force: true });
		}
	});

	test("a missing map folder is an empty digest with a hint, not a failure", async () => {
		const bare = await makeRepo({ config: BASIC_CONFIG });
		try {
			const result = await run(bare, {});
			expect(result.ok).toBe(true);
			expect(result.data).toEqual({ mode: "digest", dir: "docs/map/", regions: [] });
			expect(result.hints?.join(" ")).toContain("docs/map/README.md");
			const page = await run(bare, { target: "api" });
			expect(page.error).toBe("unknown_target");
		} finally {
			await bare.remove();
		}
	});

	test("[map].dir leading outside the repository is invalid_config, as a path or through a symlink", async () => {
		const escaping = await makeRepo({ config: `${BASIC_CONFIG}\n[map]\ndir = "../elsewhere/"\n` });
		const linked = await makeRepo({ config: BASIC_CONFIG });
		try {
			await mkdir(join(linked.root, "docs"), { recursive: true });
			await symlink(outside, join(linked.root, "docs/map"));
			for (const where of [escaping, linked]) {
				const result = await run(where, { target: "secret" });
				expect(result.error).toBe("invalid_config");
			}
		} finally {
			await escaping.remove();
			await linked.remove();
		}
	});
});

describe("pages", () => {
	test("a page is its markdown with its title and the file to edit; a folder is its README", async () => {
		const page = await core({ target: "api/auth" });
		expect(page.ok).toBe(true);
		expect(page.data).toEqual({ mode: "page", target: "api/auth", path: "docs/map/api/auth.md", title: "Authentication", content: AUTH_PAGE });
		expect(page.message).toBe("How a request proves who sent it: a bearer token checked by the handler.");
		for (const spelling of ["api", "api/", "api/README.md", "docs/map/api/README.md", "./api/README"]) {
			const region = await core({ target: spelling });
			expect({ spelling, target: (region.data as { target?: string }).target }).toEqual({ spelling, target: "api" });
		}
		expect(((await core({ target: "docs/map/api/auth.md" })).data as { target: string }).target).toBe("api/auth");
		expect(((await core({ target: "README" })).data as { title: string }).title).toBe("Project map");
		// Internal notes are readable pages, just not regions; a symlink that stays inside the map is followed.
		expect((await core({ target: "_internal/notes" })).ok).toBe(true);
		expect(((await core({ target: "alias" })).data as { content: string }).content).toBe(AUTH_PAGE);
	});

	test("an unknown page is unknown_target with the nearest page", async () => {
		const result = await core({ target: "api/auht" });
		expect(result.error).toBe("unknown_target");
		expect(result.hints?.[0]).toContain("discern map api/auth");
		const folder = await core({ target: "web/pages" });
		expect(folder.error).toBe("unknown_target");
		expect(folder.hints?.[0]).toContain("web/pages/home");
		expect((await core({ target: "notes.txt" })).error).toBe("unknown_target");
	});

	test("a page over 256 KiB is cut with a hint", async () => {
		await repo.write("docs/map/web/huge.md", `# Huge\n\n${"word ".repeat(80_000)}\n`);
		try {
			const result = await core({ target: "web/huge" });
			expect(result.ok).toBe(true);
			expect((result.data as { content: string }).content.length).toBeLessThanOrEqual(256 * 1024);
			expect(result.hints?.[0]).toContain("256 KiB");
		} finally {
			await rm(join(repo.root, "docs/map/web/huge.md"));
		}
	});
});

describe("search", () => {
	test("ranks title hits first, with snippets, and can be scoped under a target", async () => {
		const result = await core({ search: "token" });
		expect(result.ok).toBe(true);
		const matches = (result.data as { matches: { target: string; title: string; snippet: string; score: number }[] }).matches;
		const targets = matches.map((match) => match.target);
		// The page and its aliases (links that stay inside the map) rank alike, first.
		expect(targets.slice(0, 3).sort()).toEqual(["alias", "api-link/auth", "api/auth"]);
		expect(matches.slice(0, 3).map((match) => match.title)).toEqual(["Authentication", "Authentication", "Authentication"]);
		expect(targets).toContain("web/pages/home");
		expect(targets).not.toContain("leak");
		expect(matches[0]?.snippet.toLowerCase()).toContain("token");
		for (let index = 1; index < matches.length; index++) expect((matches[index - 1]?.score ?? 0) >= (matches[index]?.score ?? 0)).toBe(true);
		const scoped = await core({ search: "token", target: "web" });
		expect((scoped.data as { matches: { target: string }[] }).matches.map((match) => match.target)).toEqual(["web/pages/home"]);
		expect((await core({ search: "token", target: "nowhere" })).error).toBe("unknown_target");
		const none = await core({ search: "zzqqxx" });
		expect(none.ok).toBe(true);
		expect(none.hints?.length).toBeGreaterThan(0);
	});

	test("nothing outside the map is searched", async () => {
		const secret = await core({ search: "secret" });
		expect((secret.data as { matches: unknown[] }).matches).toEqual([]);
	});
});

/** Every way to spell a way out of the map folder. */
const ESCAPES = [
	"../../etc/passwd",
	"../secret",
	"%2e%2e/secret",
	"%2E%2E%2Fsecret",
	"%252e%252e/secret",
	"api/../../secret",
	"/etc/passwd",
	"..\\secret",
	"api\\..\\..\\secret",
	"api\0",
	"leak",
	"ext/secret",
	"C:/Windows",
];

describe("no target leaves the map", () => {
	test("the core refuses each escape with unknown_target, also as a search scope", async () => {
		for (const target of ESCAPES) {
			const page = await core({ target });
			expect({ target, error: page.error }).toEqual({ target, error: "unknown_target" });
			expect(JSON.stringify(page)).not.toContain("Not for the map");
			expect(JSON.stringify(page)).not.toContain("Outside the map folder");
			const scoped = await core({ target, search: "secret" });
			expect({ target, error: scoped.error }).toEqual({ target, error: "unknown_target" });
		}
	});

	test("the CLI refuses them with exit 1 and one envelope", async () => {
		for (const target of ["../../etc/passwd", "%2e%2e/secret", "/etc/passwd", "leak", "ext/secret"]) {
			const run = await runDiscern(["map", target, "--json"], { cwd: repo.root });
			const envelope = onlyJson(run.stdout);
			expect({ target, exit: run.exitCode, error: envelope.error, stderr: run.stderr }).toEqual({ target, exit: 1, error: "unknown_target", stderr: "" });
		}
	});

	test("the CLI reads the digest and a page as text", async () => {
		const digest = await runDiscern(["map"], { cwd: repo.root });
		expect(digest.exitCode).toBe(0);
		expect(digest.stdout).toContain("api");
		expect(digest.stdout).toContain("2 code commits since");
		const page = await runDiscern(["map", "api/auth"], { cwd: repo.root });
		expect(page.exitCode).toBe(0);
		expect(page.stdout).toContain("# Authentication");
	});
});

describe("over MCP", () => {
	test("discern_map reads the digest and pages, and refuses escapes; the resources do the same", async () => {
		const { client, close } = await connectInMemory(repo.root);
		try {
			const digest = await client.callTool({ name: "discern_map", arguments: {} });
			expect(digest.isError).toBe(false);
			expect(((digest.structuredContent as { data: Digest }).data.regions ?? []).map((region) => region.name)).toContain("api");
			const page = await client.callTool({ name: "discern_map", arguments: { target: "api/auth", path: repo.root } });
			expect((page.structuredContent as { data: { content: string } }).data.content).toBe(AUTH_PAGE);
			for (const target of ["../../etc/passwd", "%2e%2e/secret", "/etc/passwd", "leak", "ext/secret"]) {
				const refused = await client.callTool({ name: "discern_map", arguments: { target } });
				expect({ target, isError: refused.isError, error: (refused.structuredContent as { error?: string }).error }).toEqual({
					target,
					isError: true,
					error: "unknown_target",
				});
			}

			const { resources } = await client.listResources();
			expect(resources.map((resource) => resource.uri)).toContain("discern://map");
			const { resourceTemplates } = await client.listResourceTemplates();
			expect(resourceTemplates.find((template) => template.uriTemplate === "discern://map/{+target}")?.mimeType).toBe("text/markdown");
			const { contents } = await client.readResource({ uri: "discern://map" });
			const first = contents[0] as { text: string; mimeType?: string };
			expect(first.mimeType).toBe("application/json");
			expect((JSON.parse(first.text) as Digest).regions.map((region) => region.name)).toContain("web");
			const resourcePage = (await client.readResource({ uri: "discern://map/api/auth" })).contents[0] as { text: string; mimeType?: string };
			expect(resourcePage).toMatchObject({ mimeType: "text/markdown", text: AUTH_PAGE });
			for (const uri of [
				"discern://map/../../etc/passwd",
				"discern://map/%2e%2e/secret",
				"discern://map/%252e%252e/secret",
				"discern://map//etc/passwd",
				"discern://map/leak",
				"discern://map/ext/secret",
				"discern://map/nope",
				"discern://map/",
				"discern://map/%E0%A4%A",
			]) {
				const error = await client.readResource({ uri }).then(
					() => "read",
					(thrown: unknown) => String(thrown),
				);
				expect({ uri, error }).toEqual({ uri, error: expect.stringContaining("Unknown resource") });
			}
		} finally {
			await close();
		}
	});
});
