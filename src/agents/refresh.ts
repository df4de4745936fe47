import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type * as v from "valibot";
import { openProject } from "../config/open-project.ts";
import type { VerbContext } from "../contract/context.ts";
import { asVerb, fail, ok, type Result } from "../contract/envelope.ts";
import { ref } from "../contract/refer.ts";
import { WriteDeniedError, writeFileAtomic } from "../platform/files.ts";
import { writeDenied } from "../platform/write-denied.ts";
import { plural } from "../text/plural.ts";
import { type ChosenCommand, chooseCommand, type RunningBinary } from "./command.ts";
import { INSTRUCTIONS_FILE } from "./providers.ts";
import type { RefreshData, RefreshInput } from "./refresh-schema.ts";
import { blockingOf, planWiring, type WiringFile } from "./wiring.ts";
import { lastWritten, recordWritten, textHash } from "./written-record.ts";

type RefreshResult = Result<"refresh", RefreshData>;

/**
 * AGENTS.md, the pointer files, the MCP entries and the hook of the
 * configured agents (src/agents/providers.ts), brought to what the config
 * says. Every file is planned (and any refusal found) before the first
 * write; unchanged files are not written at all.
 */
export async function refresh(ctx: VerbContext, input: v.InferOutput<typeof RefreshInput>, running: RunningBinary): Promise<RefreshResult> {
	const { say } = ctx;
	const opened = await openProject(ctx);
	if (!opened.ok) return asVerb("refresh", opened.refusal);
	const { repository, config } = opened;
	const server = chooseCommand(ctx.env, running);
	// What refresh last wrote to AGENTS.md here: an untracked one holding anything else is a person's edit, never overwritten.
	const written = await lastWritten(repository.gitDir, INSTRUCTIONS_FILE);
	const files = await planWiring(repository.root, config, { env: ctx.env, mode: "write", server, verbs: ctx.verbs, lastWritten: written });
	const data: RefreshData = {
		files: files.map((file) => ({ path: file.path, action: file.action })),
		command: config.project.agents.length > 0 ? { command: server.command, args: server.args, why: server.why } : null,
	};
	const blocking = blockingOf(files);
	if (blocking) {
		const { first, more } = blocking;
		return fail("refresh", first.error, `Nothing was written: ${first.reason}${more}.`, [first.fix, say`Then run ${ref("refresh")} again.`], { data });
	}
	const changing = files.filter((file) => file.action !== "unchanged");
	if (input.dry_run) {
		return ok(
			"refresh",
			changing.length === 0
				? "Everything is current; nothing would be written."
				: `Would write ${plural(changing.length, "file")}: ${changing.map(describe).join(", ")}.`,
			data,
			{
				dry_run: true,
				plan: files.map((file) => ({
					kind: file.kind,
					label: file.path,
					disposition: file.action === "unchanged" ? ("skip" as const) : ("run" as const),
					note: file.action,
				})),
				...commandHint(data, server),
			},
		);
	}
	const raced: string[] = [];
	for (const file of changing) {
		try {
			// Re-read right before writing: a save made since the plan is never overwritten.
			const now = await readFile(join(repository.root, file.path), "utf8").catch(() => null);
			if (file.before !== undefined && now !== file.before) {
				raced.push(file.path);
				continue;
			}
			// An existing file keeps its mode (a 0600 .mcp.json stays private), as `config set` keeps discern.toml's.
			await writeFileAtomic(repository.root, file.path, file.after, { keepMode: true });
			if (file.kind === "instructions") await recordWritten(repository.gitDir, file.path, file.after);
		} catch (error) {
			const refusal =
				error instanceof WriteDeniedError
					? { message: error.message, hints: [say`Remove the link, then run ${ref("refresh")} again.`] as [string, ...string[]] }
					: writeDenied(error, file.path);
			if (!refusal) throw error;
			return fail("refresh", "write_denied", `${file.path} could not be written: ${refusal.message}`, refusal.hints as [string, ...string[]], { data });
		}
	}
	// An AGENTS.md already as refresh compiles it is discern's text: recorded, so a later edit of it is told from a config change.
	const instructions = files.find((file) => file.kind === "instructions" && file.action === "unchanged");
	if (instructions && textHash(instructions.after) !== written) await recordWritten(repository.gitDir, instructions.path, instructions.after);
	if (raced.length > 0) {
		const wrote = changing.filter((file) => !raced.includes(file.path));
		return fail(
			"refresh",
			"write_denied",
			`${raced.join(", ")} changed while refreshing: not written.${wrote.length > 0 ? ` Wrote ${wrote.map(describe).join(", ")}.` : ""}`,
			[say`Run ${ref("refresh")} again.`],
			{ data },
		);
	}
	return ok(
		"refresh",
		changing.length === 0 ? "Everything is current; nothing was written." : `Wrote ${plural(changing.length, "file")}: ${changing.map(describe).join(", ")}.`,
		data,
		commandHint(data, server),
	);
}

function describe(file: WiringFile): string {
	return `${file.path} (${file.action})`;
}

function commandHint(data: RefreshData, server: ChosenCommand): { hints?: string[] } {
	return data.command ? { hints: [`Agents start the server as \`${[server.command, ...server.args].join(" ")}\`: ${server.why}.`] } : {};
}
