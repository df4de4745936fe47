import { describe, expect, test } from "bun:test";
import { ref } from "../../src/contract/refer.ts";
import { actionFor, render, sayFor } from "../helpers/words.ts";

describe("a hint's verb reference, rendered per surface", () => {
	test("on the CLI: the command with its flags and positionals", () => {
		expect(render(ref("done", { rerun: true }), "cli")).toBe("`discern done --rerun`");
		expect(render(ref("done", { dry_run: true, rerun: false }), "cli")).toBe("`discern done --dry-run`");
		expect(render(ref("config get", { key: "gate.timeout" }), "cli")).toBe("`discern config get gate.timeout`");
		expect(render(ref("impact", { has: "web" }), "cli")).toBe("`discern impact --has web`");
		// A value is one word a person can paste: quoted when it holds spaces or shell characters.
		expect(render(ref("start", { title: "pin standards" }), "cli")).toBe("`discern start --title 'pin standards'`");
		expect(render(ref("start", { title: "it's $HOME" }), "cli")).toBe("`discern start --title 'it'\\''s $HOME'`");
	});

	test("over MCP: the tool with its arguments, or the owner asked to run a CLI-only verb", () => {
		expect(render(ref("done", { rerun: true }), "mcp")).toBe('`discern_done` with `{"rerun":true}`');
		expect(render(ref("status"), "mcp")).toBe("`discern_status`");
		expect(render(ref("setup"), "mcp")).toBe("ask the owner to run `discern setup` in a terminal");
	});

	test("a sentence holds references among its words", () => {
		const line = (surface: "cli" | "mcp") => sayFor(surface)`If it was flaky, ${ref("done", { rerun: true })} runs it anyway (${2} tries).`;
		expect(line("cli")).toBe("If it was flaky, `discern done --rerun` runs it anyway (2 tries).");
		expect(line("mcp")).toBe('If it was flaky, `discern_done` with `{"rerun":true}` runs it anyway (2 tries).');
	});

	test('"Run" before a CLI-only verb over MCP becomes the owner\'s part, never "Run ask the owner…"', () => {
		expect(sayFor("mcp")`Run ${ref("setup")} to detect the stack.`).toBe("Ask the owner to run `discern setup` in a terminal to detect the stack.");
		expect(sayFor("mcp")`Edit it, then run ${ref("config validate")}.`).toBe("Edit it, then ask the owner to run `discern config validate` in a terminal.");
		expect(sayFor("cli")`Run ${ref("setup")} to detect the stack.`).toBe("Run `discern setup` to detect the stack.");
		// A tool keeps the sentence as written.
		expect(sayFor("mcp")`Run ${ref("done")} again.`).toBe("Run `discern_done` again.");
	});

	test("a next action names the command bare, as the thing to type", () => {
		expect(actionFor("cli")`git commit, then ${ref("done")}`).toBe("git commit, then discern done");
		expect(actionFor("mcp")`git commit, then ${ref("done", { rerun: true })}`).toBe('git commit, then discern_done with {"rerun":true}');
		expect(actionFor("mcp")`${ref("config validate")}`).toBe("ask the owner to run discern config validate in a terminal");
	});

	test("only verbs of this build and their own arguments can be named (checked by the compiler)", () => {
		// @ts-expect-error `frobnicate` is not a verb of the registry
		expect(() => render(ref("frobnicate"), "cli")).toThrow("registry lacks");
		// Checked by `npm run typecheck` (CI runs it): the directive fails the build if this line ever compiles.
		const unknownFlag = () =>
			// @ts-expect-error `done` takes no `force`
			ref("done", { force: true });
		expect(unknownFlag).toBeFunction();
	});
});
