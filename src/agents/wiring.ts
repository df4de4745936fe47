import { lstat, readFile } from "node:fs/promises";
import { posix } from "node:path";
import type { DiscernConfig } from "../config/schema.ts";
import { isRecord } from "../contract/record.ts";
import type { KnownVerbs } from "../contract/refer.ts";
import { mergeJsonPath, readJsonc, removeJsonPath, setJsonPath } from "../edit/jsonc.ts";
import { git } from "../git/run.ts";
import { resolveInside, WriteDeniedError } from "../platform/files.ts";
import { plural } from "../text/plural.ts";
import { pathArgument, shellCommand } from "../text/shell-quote.ts";
import { resolveTrunk } from "../trunk/resolve.ts";
import { type ChosenCommand, commandLine, commandResolves, hookServer } from "./command.ts";
import { compileInstructions, type InstructionSource, isGenerated } from "./instructions.ts";
import {
	type Agent,
	ENSURE_WORDS,
	type FILE_ACTIONS,
	generatedFiles,
	type HookWiring,
	INSTRUCTIONS_FILE,
	isDiscernEntry,
	isEnsureHook,
	isPointer,
	type McpWiring,
	POINTER_TEXT,
	type Provider,
	providersFor,
	type ServerCommand,
} from "./providers.ts";
import { readEntry } from "./targets.ts";
import { textHash } from "./written-record.ts";

export type FileAction = (typeof FILE_ACTIONS)[number];
export type WiringKind = "instructions" | "pointer" | "mcp" | "hook";

/** Why discern will not write a file: a link, a person's own file, a file it cannot parse. */
export interface Blocked {
	error: "write_denied" | "invalid_config";
	reason: string;
	fix: string;
}

/**
 * What stops a plan of files (refresh's, uninstall's): the first refusal, to
 * say in full, and the other files refused, named after it (" (and 2 more
 * files: a, b)"); null when nothing does.
 */
export function blockingOf(files: readonly { path: string; blocked?: Blocked }[]): { first: Blocked; more: string } | null {
	const blocked = files.filter((file) => file.blocked);
	const first = blocked[0]?.blocked;
	if (!first) return null;
	const others = blocked.slice(1).map((file) => file.path);
	return { first, more: others.length > 0 ? ` (and ${plural(others.length, "more file")}: ${others.join(", ")})` : "" };
}

export interface WiringFile {
	path: string;
	kind: WiringKind;
	agent: Agent | null;
	action: FileAction;
	/** The bytes to write (for create/update). */
	after: string;
	/** The text this plan was made against (null: no file); a write is skipped when the file no longer holds it. */
	before?: string | null;
	blocked?: Blocked;
}

export interface WiringOptions {
	env: Readonly<Record<string, string | undefined>>;
	/**
	 * `write` (refresh): an existing discern entry is kept only if its command
	 * still resolves. `check` (done, status, doctor): only the entry's shape
	 * counts, so the PATH of whoever runs the check does not matter.
	 */
	mode: "write" | "check";
	/** The command to write where an entry is missing or broken. */
	server: ChosenCommand | ServerCommand;
	/** The verbs of this build (`ctx.verbs`): AGENTS.md's briefing names them. */
	verbs: KnownVerbs;
	/**
	 * When writing: the hash of what refresh last wrote to AGENTS.md in this
	 * checkout (written-record.ts), null for no record. An untracked AGENTS.md
	 * holding anything else is a person's edit and is not overwritten.
	 */
	lastWritten?: string | null;
}

/** A placeholder server for checks: only whether an entry is there and well formed is judged. */
export const CHECK_SERVER: ServerCommand = { command: "discern", args: ["mcp"] };

/**
 * Every file `refresh` owns or merges into for this config, with what it
 * would do to each. Reads only; nothing is written here.
 */
export async function planWiring(root: string, config: DiscernConfig, options: WiringOptions): Promise<WiringFile[]> {
	const providers = providersFor(config.project.agents);
	const files: WiringFile[] = [await planInstructions(root, config, options.verbs, options.mode, options.lastWritten)];
	for (const provider of providers) {
		if (provider.pointer) files.push(await planPointer(root, provider));
		files.push(await planMcp(root, provider, options));
		if (provider.hook) files.push(await planHook(root, provider, options));
	}
	return files;
}

/** Does the instructions-currency check apply here: agents are configured, or AGENTS.md is discern's? */
export async function wiringApplies(root: string, config: DiscernConfig): Promise<boolean> {
	if (config.project.agents.length > 0) return true;
	const current = await readTarget(root, INSTRUCTIONS_FILE);
	return current.ok && current.text !== null && isGenerated(current.text);
}

/** The files that are not as `refresh` would leave them (or that it could not write). */
export async function staleWiring(root: string, config: DiscernConfig, verbs: KnownVerbs): Promise<WiringFile[]> {
	if (!(await wiringApplies(root, config))) return [];
	const files = await planWiring(root, config, { env: {}, mode: "check", server: CHECK_SERVER, verbs });
	const stale = files.filter((file) => file.action !== "unchanged" || file.blocked);
	// An MCP config or hook file git ignores is each checkout's own: a fresh worktree lacks it by design.
	const local = stale.filter((file) => file.kind === "mcp" || file.kind === "hook").map((file) => file.path);
	if (local.length === 0) return stale;
	const ignored = await git(["check-ignore", "--", ...local], root);
	const skip = new Set(ignored.exitCode === 0 ? ignored.stdout.split("\n").filter((line) => line !== "") : []);
	return stale.filter((file) => !skip.has(file.path));
}

export type Target = { ok: true; text: string | null } | { ok: false; blocked: Blocked };

/** A file discern writes or merges into: its text, null when absent, or why discern will not touch it (a link, not a file). */
export async function readTarget(root: string, path: string): Promise<Target> {
	try {
		const full = await resolveInside(root, path);
		const stat = await lstat(full).catch(() => null);
		if (!stat) return { ok: true, text: null };
		if (!stat.isFile()) return { ok: false, blocked: { error: "write_denied", reason: `${path} is not a regular file`, fix: `Move what is at ${path} away.` } };
		return { ok: true, text: await readFile(full, "utf8") };
	} catch (error) {
		if (error instanceof WriteDeniedError)
			return {
				ok: false,
				blocked: {
					error: "write_denied",
					reason: error.message,
					fix: `Replace ${path} with a regular file (or remove it); discern writes only inside the checkout, never through links.`,
				},
			};
		throw error;
	}
}

function decided(path: string, kind: WiringKind, agent: Agent | null, before: string | null, after: string): WiringFile {
	return { path, kind, agent, action: before === null ? "create" : before === after ? "unchanged" : "update", after, before };
}

function refused(path: string, kind: WiringKind, agent: Agent | null, blocked: Blocked): WiringFile {
	return { path, kind, agent, action: "update", after: "", blocked };
}

export async function planInstructions(
	root: string,
	config: DiscernConfig,
	verbs: KnownVerbs,
	mode: WiringOptions["mode"] = "check",
	lastWritten?: string | null,
): Promise<WiringFile> {
	const path = INSTRUCTIONS_FILE;
	const current = await readTarget(root, path);
	if (!current.ok) return refused(path, "instructions", null, current.blocked);
	const generatedTargets = new Set(generatedFiles(providersFor(config.project.agents)));
	const sources: InstructionSource[] = [];
	for (const source of config.instructions.sources) {
		if (generatedTargets.has(source.replace(/^\.\//, ""))) {
			return refused(path, "instructions", null, {
				error: "invalid_config",
				reason: `[instructions].sources lists ${source}, which discern generates`,
				fix: `Move its text to another file (e.g. docs/agent-instructions.md) and list that in [instructions].sources.`,
			});
		}
		if (inGitDir(source)) {
			return refused(path, "instructions", null, {
				error: "invalid_config",
				reason: `[instructions].sources lists ${source}, which is inside a git directory`,
				fix: `Remove ${source} from [instructions].sources in discern.toml: only files the repository tracks are compiled into ${INSTRUCTIONS_FILE}.`,
			});
		}
		const read = await readTarget(root, source);
		if (!read.ok) return refused(path, "instructions", null, { ...read.blocked, error: "invalid_config" });
		if (read.text === null)
			return refused(path, "instructions", null, {
				error: "invalid_config",
				reason: `[instructions].sources lists ${source}, which does not exist`,
				fix: `Create ${source}, or remove it from [instructions].sources in discern.toml.`,
			});
		const untrusted = await untrackedSource(root, source);
		if (untrusted)
			return refused(path, "instructions", null, {
				error: "invalid_config",
				reason: `[instructions].sources lists ${source}, ${untrusted.reason}`,
				fix: untrusted.fix,
			});
		sources.push({ path: source, text: read.text });
	}
	// Without DISCERN_TRUNK: the briefing is a committed file, the same whoever's environment compiles it.
	const { trunk } = await resolveTrunk(root, config.repository.trunk, undefined);
	const after = compileInstructions(config, trunk.name, sources, verbs);
	if (current.text !== null && !isGenerated(current.text)) {
		if (await ignoredHere(root, path)) return refused(path, "instructions", null, privateFile(path));
		return refused(path, "instructions", null, {
			error: "write_denied",
			reason: `${path} was written by hand, not generated by discern`,
			fix: `Move it to a source (\`${shellCommand("git", "mv", pathArgument(path), "docs/agent-instructions.md")}\`) and list that file in [instructions].sources in discern.toml: refresh then compiles it into ${path} after discern's own briefing.`,
		});
	}
	if (mode === "write" && current.text !== null && current.text !== after) {
		const head = await committedText(root, path);
		// The header says discern's, but someone is editing it now: uncommitted changes against HEAD are not overwritten.
		if (head !== null && head !== current.text)
			return refused(path, "instructions", null, {
				error: "write_denied",
				reason: `${path} has uncommitted changes (someone is editing it; refresh would overwrite them)`,
				fix: `Move what you added to a file listed in [instructions].sources, then drop the edits (\`${shellCommand("git", "checkout", "--", path)}\`) or commit ${path} as it is.`,
			});
		// Not tracked, so git holds no copy: what refresh last wrote here is the original, and anything else is a person's edit,
		// kept as uninstall keeps it ("changed since"). Without a record, discern cannot tell: it keeps the file too.
		if (head === null && lastWritten !== undefined && textHash(current.text) !== lastWritten)
			return refused(path, "instructions", null, {
				error: "write_denied",
				reason:
					lastWritten === null
						? `${path} is not committed, and discern has no record of writing what it holds now (it may hold edits of yours, which refresh would overwrite with no copy anywhere)`
						: `${path} changed since discern last wrote it, and it is not committed (refresh would overwrite the edit, with no copy anywhere)`,
				fix: `${path} is generated: edits belong in a file listed in [instructions].sources in discern.toml, which refresh compiles into it. Move what you added there (or save a copy), then delete ${path} (\`${shellCommand("rm", "--", pathArgument(path))}\`) so refresh writes it afresh.`,
			});
	}
	return decided(path, "instructions", null, current.text, after);
}

/** What HEAD holds at `path`, as text; null when it holds nothing there. */
export async function committedText(root: string, path: string): Promise<string | null> {
	const shown = await git(["cat-file", "blob", `HEAD:${path}`], root);
	return shown.exitCode === 0 ? shown.stdout : null;
}

/** Does git ignore this untracked path: a checkout's own file (private notes)? A tracked path is never ignored, as check-ignore answers. */
export async function ignoredHere(root: string, path: string): Promise<boolean> {
	return (await git(["check-ignore", "-q", "--", path], root)).exitCode === 0;
}

/** A hand-written file git ignores where discern generates one: never suggest sharing it. */
function privateFile(path: string): Blocked {
	const local = `${path.replace(/\.md$/i, "")}.local.md`;
	return {
		error: "write_denied",
		reason: `${path} is your own file, ignored by git (not generated by discern)`,
		fix: `discern generates ${path} for every checkout, so it will not overwrite yours. Rename it (\`${shellCommand("mv", pathArgument(path), pathArgument(local))}\`, and ignore that name) or delete it; do not list it in [instructions].sources, which would compile it into a shared ${INSTRUCTIONS_FILE}.`,
	};
}

/** A path with a `.git` segment (any case: some file systems fold it) names git's own files, never a source. */
function inGitDir(source: string): boolean {
	return source.split(/[\\/]/).some((segment) => segment.toLowerCase() === ".git");
}

/**
 * Why a source is not one `AGENTS.md` may carry, or null: it must be a
 * regular file the repository tracks and does not ignore, so that what is
 * compiled (and then committed) is only what was already shared — never a
 * local secret (`.env`) or an untracked file.
 */
async function untrackedSource(root: string, source: string): Promise<{ reason: string; fix: string } | null> {
	const normalized = posix.normalize(source.replace(/\\/g, "/"));
	const listed = await git(["ls-files", "-z", "--stage", "--", `:(literal)${normalized}`], root);
	const tracked =
		listed.exitCode === 0 &&
		listed.stdout.split("\0").some((record) => {
			const tab = record.indexOf("\t");
			return tab > 0 && record.slice(tab + 1) === normalized && /^100(644|755) /.test(record);
		});
	if (!tracked)
		return {
			reason: "which git does not track as a file",
			fix: `Commit ${source} (\`${shellCommand("git", "add", pathArgument(source))}\`), or remove it from [instructions].sources in discern.toml: only tracked files are compiled into ${INSTRUCTIONS_FILE}.`,
		};
	const ignored = await git(["check-ignore", "-q", "--no-index", "--", normalized], root);
	if (ignored.exitCode === 0)
		return {
			reason: "which git ignores",
			fix: `Remove ${source} from [instructions].sources in discern.toml: an ignored file is a checkout's own (a secret, a local note), never compiled into ${INSTRUCTIONS_FILE}.`,
		};
	return null;
}

async function planPointer(root: string, provider: Provider): Promise<WiringFile> {
	const path = provider.pointer ?? "";
	const current = await readTarget(root, path);
	if (!current.ok) return refused(path, "pointer", provider.agent, current.blocked);
	if (current.text !== null && !isPointer(current.text)) {
		if (await ignoredHere(root, path)) return refused(path, "pointer", provider.agent, privateFile(path));
		return refused(path, "pointer", provider.agent, {
			error: "write_denied",
			reason: `${path} was written by hand (discern writes it as the one line \`${POINTER_TEXT.trim()}\`)`,
			fix: `Move it to a source (\`${shellCommand("git", "mv", pathArgument(path), "docs/agent-instructions.md")}\`) and list that file in [instructions].sources in discern.toml, so ${provider.label} reads it through ${INSTRUCTIONS_FILE}.`,
		});
	}
	// A pointer that says the same with other line endings is left as it is.
	return decided(path, "pointer", provider.agent, current.text, current.text ?? POINTER_TEXT);
}

async function planMcp(root: string, provider: Provider, options: WiringOptions): Promise<WiringFile> {
	const { file, format, path } = provider.mcp;
	const current = await readTarget(root, file);
	if (!current.ok) return refused(file, "mcp", provider.agent, current.blocked);
	const text = current.text ?? "";
	const unreadable = format === "jsonc" ? jsoncProblem(text) : null;
	if (unreadable)
		return refused(file, "mcp", provider.agent, { error: "write_denied", reason: `${file} is not valid JSON (${unreadable})`, fix: `Fix ${file} by hand.` });
	const existing = readEntry(format, text, path);
	const wanted = provider.mcp.entry(options.server);
	if (current.text !== null && (await entryCurrent(provider.mcp, existing, options))) return decided(file, "mcp", provider.agent, text, text);
	// The TOML editor only for a TOML file: every gate plans the wiring (is it stale?), few agents keep TOML.
	const written = writeMcpEntry(provider.mcp, text, existing, wanted, provider.mcp.format === "toml" ? await import("../edit/toml.ts") : null);
	if (!written.ok)
		return refused(file, "mcp", provider.agent, {
			error: "write_denied",
			reason: `${file}: ${written.reason}`,
			fix: `Add the [${path.join(".")}] table by hand (the manual page mcp/${provider.page} shows it).`,
		});
	return decided(file, "mcp", provider.agent, current.text, written.text);
}

/** The TOML key editor (edit/toml.ts), passed in where a TOML file is edited: toml-patch is a quarter of a megabyte of code. */
export type TomlKeys = Pick<typeof import("../edit/toml.ts"), "setKey" | "removeKey">;

/**
 * What refresh does to an MCP config's text to put discern's entry in
 * (`existing` is the entry there now, if any): merged into JSONC, key by key
 * into TOML. `uninstall` replays it to tell which earlier text refresh
 * turned into what is there now.
 */
export function writeMcpEntry(
	mcp: McpWiring,
	text: string,
	existing: unknown,
	wanted: Record<string, unknown>,
	toml: TomlKeys | null,
): { ok: true; text: string } | { ok: false; reason: string } {
	// discern's entry is exactly what refresh writes: one with keys of its own (`env`, `cwd`) or not a table is replaced whole.
	const foreign = existing !== undefined && (!isRecord(existing) || Object.keys(existing).some((key) => !(key in wanted)));
	if (mcp.format === "jsonc") return { ok: true, text: foreign ? setJsonPath(text, [...mcp.path], wanted) : mergeJsonPath(text, [...mcp.path], wanted) };
	if (!toml) throw new Error(`writeMcpEntry: ${mcp.file} is TOML, and no TOML editor was given`);
	const bom = text.startsWith("\uFEFF") ? "\uFEFF" : "";
	let body = text.slice(bom.length);
	let kept = existing as Record<string, unknown> | undefined;
	if (foreign) {
		const removed = toml.removeKey(body, mcp.path, 1);
		if (!removed.ok) return removed;
		body = removed.text;
		kept = undefined;
	}
	for (const [key, value] of Object.entries(wanted)) {
		if (Bun.deepEquals(kept?.[key], value)) continue;
		const edit = toml.setKey(body, [...mcp.path, key], JSON.stringify(value));
		if (!edit.ok) return edit;
		body = edit.text;
	}
	return { ok: true, text: `${bom}${body}` };
}

/** What refresh does to a settings file's text to add discern's hook group: appended to the list, or the list made. */
export function addHookGroup(hook: HookWiring, text: string, group: Record<string, unknown>): string {
	return Array.isArray(readEntry("jsonc", text, hook.path)) ? setJsonPath(text, [...hook.path, -1], group) : setJsonPath(text, [...hook.path], [group]);
}

async function planHook(root: string, provider: Provider, options: WiringOptions): Promise<WiringFile> {
	const hook = provider.hook;
	if (!hook) throw new Error(`${provider.agent} has no hook`);
	const current = await readTarget(root, hook.file);
	if (!current.ok) return refused(hook.file, "hook", provider.agent, current.blocked);
	const text = current.text ?? "";
	const unreadable = jsoncProblem(text);
	if (unreadable)
		return refused(hook.file, "hook", provider.agent, {
			error: "write_denied",
			reason: `${hook.file} is not valid JSON (${unreadable})`,
			fix: `Fix ${hook.file} by hand.`,
		});
	const groups = readEntry("jsonc", text, hook.path);
	const wanted = hook.group(commandLine(options.server, ENSURE_WORDS));
	const list = Array.isArray(groups) ? groups : null;
	// A group holding the exact line refresh writes is discern's; it is current only when it is the one such group and exactly what refresh writes (matcher, nothing added).
	const ours = list ? list.flatMap((group, index) => (hook.commandsOf(group).some(isEnsureHook) ? [index] : [])) : [];
	if (list && ours.length > 0) {
		const first = ours[0] ?? 0;
		const claims = hook.commandsOf(list[first]).filter(isEnsureHook);
		const server = ours.length === 1 && claims.length === 1 && claims[0] ? hookServer(claims[0], ENSURE_WORDS) : null;
		const exact = server && Bun.deepEquals(list[first], hook.group(claims[0] ?? ""), true) ? server : null;
		if (exact && (options.mode === "check" || (await commandResolves(exact.command, options.env))))
			return decided(hook.file, "hook", provider.agent, text, text);
		// Later groups: discern's alone go; a person's commands beside discern's stay, only discern's line leaves.
		let after = text;
		for (const index of ours.slice(1).reverse()) after = withoutOurHooks(hook, after, list[index], [...hook.path, index]);
		if (hook.commandsOf(list[first]).every(isEnsureHook))
			return decided(hook.file, "hook", provider.agent, current.text, setJsonPath(after, [...hook.path, first], wanted));
		after = withoutOurHooks(hook, after, list[first], [...hook.path, first]);
		return decided(hook.file, "hook", provider.agent, current.text, addHookGroup(hook, after, wanted));
	}
	return decided(hook.file, "hook", provider.agent, current.text, addHookGroup(hook, text, wanted));
}

/** The group at `at` without discern's hook lines: removed whole when nothing else is in it. */
function withoutOurHooks(hook: HookWiring, text: string, group: unknown, at: (string | number)[]): string {
	if (hook.commandsOf(group).every(isEnsureHook)) return removeJsonPath(text, at);
	const hooks = (group as { hooks: unknown[] }).hooks;
	let after = text;
	for (let inner = hooks.length - 1; inner >= 0; inner--) {
		const entry = hooks[inner] as { command?: unknown };
		if (typeof entry?.command === "string" && isEnsureHook(entry.command)) after = removeJsonPath(after, [...at, "hooks", inner]);
	}
	return after;
}

/**
 * A discern entry whose command is one refresh could have written
 * (`isDiscernServer`: discern, an absolute discern binary, or bun and
 * discern's source — then `mcp`, nothing else, no shell), with the rest the
 * way the agent needs it (and, when writing, a command that resolves).
 * Anything else under the `discern` key is stale: refresh replaces it.
 */
async function entryCurrent(mcp: McpWiring, existing: unknown, options: WiringOptions): Promise<boolean> {
	if (!isDiscernEntry(mcp, existing)) return false;
	return options.mode === "check" || commandResolves(existing.command, options.env);
}

function jsoncProblem(text: string): string | null {
	const read = readJsonc(text);
	return read.ok ? null : `${read.reason} at line ${read.line}`;
}
