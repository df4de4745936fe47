import { afterEach, describe, expect, test } from "bun:test";
import { commitsBetween } from "../../src/git/commit-log.ts";
import { makeRepo, type TestRepo } from "../helpers/repo.ts";

const made: TestRepo[] = [];
afterEach(async () => {
	await Promise.all(made.splice(0).map((r) => r.remove()));
});

describe("commitsBetween", () => {
	test("the commits one revision has and another has not, newest first, with their subjects", async () => {
		const r = await makeRepo();
		made.push(r);
		const base = (await r.git("rev-parse", "HEAD")).trim();
		await r.commitAll("first: a subject with spaces");
		await r.commitAll("second\n\nwith a body that is not the subject");
		const [second, first] = (await r.git("rev-list", "-2", "HEAD")).trim().split("\n");
		expect(await commitsBetween(r.root, base, "HEAD")).toEqual([
			{ sha: second ?? "", subject: "second" },
			{ sha: first ?? "", subject: "first: a subject with spaces" },
		]);
		expect(await commitsBetween(r.root, "HEAD", base)).toEqual([]);
	});

	test("null when git cannot list them", async () => {
		const r = await makeRepo();
		made.push(r);
		expect(await commitsBetween(r.root, "no-such-branch", "HEAD")).toBeNull();
	});
});
