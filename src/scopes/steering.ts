import { posix } from "node:path";
import { quoteName } from "../text/terminal.ts";

/**
 * What steers agents: the files coding agents read as instructions, or load
 * as tools, hooks and settings, on their own when they open the repository.
 * A change to one changes what every later agent does, so it is never
 * covered by `[acceptance].pre_authorized`, whatever scope a glob puts it
 * in: the owner sees it and decides (SPEC §12). This is the one list; the
 * accept consent (verbs/accept/consent.ts) asks it for every changed path.
 *
 * Matching is deliberately wide: names are compared without case (macOS
 * and Windows checkouts open `Agents.md` as `AGENTS.md`, and some tools
 * look names up that way), and a name or folder counts at any depth
 * (agents read nested instruction files, and an editor opened on a
 * sub-folder reads that folder's own settings). Asking the owner about one
 * file too many costs a question; one too few lands an instruction unseen.
 */

interface SteeringRule {
	/** Consecutive path segments, lower case: a file's name, or a folder and everything under it. */
	segments: readonly string[];
	/** "file": the path ends with the segments; "folder": the segments are a folder on the path (or the path itself). */
	kind: "file" | "folder";
	/** Only at the repository's root. */
	rooted?: true;
	/** What reads it, for the person deciding. */
	readBy: string;
}

const file = (name: string, readBy: string): SteeringRule => ({ segments: name.split("/"), kind: "file", readBy });
const folder = (name: string, readBy: string): SteeringRule => ({ segments: name.split("/"), kind: "folder", readBy });

const RULES: readonly SteeringRule[] = [
	// Instruction files, read at any depth as the agent walks towards the file it edits.
	file("agents.md", "agent instructions: Codex, Copilot, Cursor, Gemini CLI, Zed, Jules, Amp and others"),
	file("agents.override.md", "agent instructions: Codex reads it before AGENTS.md"),
	file("agent.md", "agent instructions: Amp, Zed"),
	file("claude.md", "agent instructions: Claude Code"),
	file("claude.local.md", "agent instructions: Claude Code"),
	file("gemini.md", "agent instructions: Gemini CLI"),
	file(".cursorrules", "agent rules: Cursor, Zed"),
	file(".windsurfrules", "agent rules: Windsurf, Zed"),
	file(".rules", "agent rules: Zed"),
	file(".goosehints", "agent instructions: Goose"),
	file(".roomodes", "agent modes: Roo Code"),
	file("copilot-instructions.md", "agent instructions: GitHub Copilot"),
	file("qwen.md", "agent instructions: Qwen Code"),
	file("crush.md", "agent instructions: Crush"),
	file("warp.md", "agent instructions: Warp's agent"),
	file(".idx/airules.md", "agent rules: Firebase Studio (Project IDX) Gemini"),
	file(".augment-guidelines", "agent guidelines: Augment Code"),
	file(".continuerules", "agent rules: Continue"),
	file("conventions.md", "agent conventions: Aider reads it (`--read CONVENTIONS.md`)"),
	// What an agent may read or index: a change can hand it files it was kept from.
	file(".cursorignore", "what Cursor's agent may read and index"),
	file(".cursorindexingignore", "what Cursor indexes for its agent"),
	file(".aiderignore", "what Aider may read and edit"),
	// MCP servers, hooks and settings: what an agent may run, and what it runs without asking.
	file(".mcp.json", "MCP servers: Claude Code's project scope"),
	file(".vscode/mcp.json", "MCP servers: VS Code, GitHub Copilot"),
	file(".vscode/settings.json", "VS Code's Copilot settings: instruction files, MCP servers, tools run without asking"),
	file(".github/workflows/copilot-setup-steps.yml", "GitHub Copilot's setup steps, run before its coding agent starts"),
	file(".aider.conf.yml", "Aider's settings: files read, commands run"),
	file(".crush.json", "agent settings, MCP servers and context files: Crush"),
	file("crush.json", "agent settings, MCP servers and context files: Crush"),
	file("opencode.json", "agent settings, MCP servers and instruction files: opencode"),
	file("opencode.jsonc", "agent settings, MCP servers and instruction files: opencode"),
	file(".zed/settings.json", "Zed's project settings: its agent's context servers and tools"),
	file(".vscode/tasks.json", "VS Code's tasks: run on folder open (`runOn: folderOpen`) and by agents"),
	// Folders whose every file an agent may load: rules, commands, sub-agents, hooks, MCP config.
	folder(".claude", "agent settings, hooks, commands and sub-agents: Claude Code"),
	folder(".cursor", "agent rules, MCP servers and hooks: Cursor"),
	folder(".codex", "agent config and MCP servers: Codex"),
	folder(".gemini", "agent settings, MCP servers and commands: Gemini CLI"),
	folder(".clinerules", "agent rules: Cline"),
	folder(".windsurf", "agent rules and workflows: Windsurf"),
	folder(".roo", "agent rules: Roo Code"),
	folder(".kiro", "agent steering and hooks: Kiro"),
	folder(".junie", "agent guidelines: JetBrains Junie"),
	folder(".amazonq", "agent rules: Amazon Q"),
	folder(".continue", "agent rules and MCP servers: Continue"),
	folder(".opencode", "agent commands, modes, plugins and tools: opencode"),
	folder(".augment", "agent rules and guidelines: Augment Code"),
	folder(".trae/rules", "agent rules: Trae"),
	folder(".qwen", "agent settings, MCP servers and commands: Qwen Code"),
	folder(".crush", "agent settings and context: Crush"),
	folder(".github/instructions", "agent instructions: GitHub Copilot"),
	folder(".github/prompts", "agent prompts: GitHub Copilot"),
	folder(".github/chatmodes", "agent chat modes: GitHub Copilot"),
	folder(".github/agents", "custom agents: GitHub Copilot"),
	folder(".github/skills", "agent skills: GitHub Copilot"),
	folder(".kilocode", "agent rules, workflows and MCP servers: Kilo Code"),
	folder(".openhands", "agent setup script and microagents: OpenHands"),
	folder(".aiassistant/rules", "agent rules: JetBrains AI Assistant"),
	folder(".factory", "droids, commands, hooks and MCP servers: Factory"),
	folder(".agents", "agent commands and skills shared by several tools (Amp, Codex, Factory)"),
	folder(".tabnine", "agent guidelines and MCP servers: Tabnine"),
	folder(".devcontainer", "dev container: devcontainer.json runs postCreateCommand and the rest where agents work (Codespaces, Copilot)"),
	// discern's own config: the gate, the scopes, what is pre-authorized, the instructions compiled.
	{ segments: ["discern.toml"], kind: "file", rooted: true, readBy: "discern's config: the gate, its scopes and what lands without asking" },
];

/** How a gate change names a steering file: the Proof's judgement and accept's consent say it the same way. */
export function steeringPhrase(path: string, change: "added" | "deleted" | "modified"): string {
	return `what agents read: \`${quoteName(path)}\` ${change}`;
}

/** A path an agent reads or runs because a steering file names it (an `@` import, a link, a path or command in its settings, text or script), and that file. */
export interface Reached {
	path: string;
	via: string;
}

/**
 * What a changed path steers, in a few words, or null when it steers no
 * agent. `instructionSources` are the `[instructions].sources` of the configs
 * in play (the trunk's and the branch's): each is compiled into AGENTS.md.
 * `reached` are the paths steering files name (proof/steering-reach.ts). A
 * rename is a deletion and an addition: ask for both paths.
 */
export function steersAgents(path: string, instructionSources: readonly string[], reached: readonly Reached[] = []): string | null {
	const segments = path.split("/").map(asDiskReads);
	if (segments.some((segment) => RULE_NAMES.has(segment))) for (const rule of RULES) if (matches(segments, rule)) return rule.readBy;
	if (instructionSources.length === 0 && reached.length === 0) return null;
	const normal = segments.join("/");
	const same = (other: string) => normalPath(other) === normal;
	if (instructionSources.some(same)) return "compiled into AGENTS.md by `discern refresh` ([instructions].sources)";
	// A steering file names a file, or a folder (a linked `.claude`): everything under it counts.
	const under = (other: string) => same(other) || normal.startsWith(`${normalPath(other)}/`);
	const by = reached.find((entry) => under(entry.path));
	if (by) return `named by \`${quoteName(by.via)}\` (an \`@\` import, a link, or a path or command in its text): agents read or run it`;
	return null;
}

/**
 * Whether a symbolic link at `path` leads to what steers agents: it steers
 * them itself, or it stands for the first folders of a rule (`.github`,
 * `pkg/.vscode`, `.github/workflows`). Its target is then read as that.
 */
export function leadsToSteering(path: string): boolean {
	if (steersAgents(path, []) !== null) return true;
	const segments = path.split("/").map(asDiskReads);
	return RULES.some((rule) => {
		for (let take = 1; take < rule.segments.length; take++) {
			const start = segments.length - take;
			if (start < 0 || (rule.rooted && start !== 0)) continue;
			if (rule.segments.slice(0, take).every((segment, offset) => segments[start + offset] === segment)) return true;
		}
		return false;
	});
}

/**
 * A name as a case-insensitive disk opens it: case-folded (upper then
 * lower case, so `ſ` is `s` and the Kelvin sign is `k`, as APFS and NTFS
 * fold them), in one Unicode form with compatibility characters folded too
 * (NFKC: `ﬁ` is `fi`), without the characters HFS+ ignores, without the
 * trailing dots and spaces Windows drops, without NTFS's `::$DATA` (the
 * file's own content): `Agents.md.`, `AGENTſ.md` and `AGENTS.md::$DATA`
 * open AGENTS.md there. Wider than any one disk on purpose.
 */
export function asDiskReads(name: string): string {
	const known = folded.get(name);
	if (known !== undefined) return known;
	const disk = foldName(name);
	// Whole trees are judged name by name (proof/steering-reach.ts), and names repeat: fold each once.
	if (folded.size >= FOLDED_KEPT) folded.clear();
	folded.set(name, disk);
	return disk;
}

const folded = new Map<string, string>();
const FOLDED_KEPT = 1 << 16;

function foldName(name: string): string {
	return name
		.replace(/[\u200B-\u200F\u202A-\u202E\u2060-\u206F\uFEFF]/g, "")
		.normalize("NFKC")
		.toUpperCase()
		.toLowerCase()
		.normalize("NFKC")
		.replace(/::\$data$/, "")
		.replace(/[. ]+$/, "");
}

/**
 * The repository paths an instruction file imports: `@path` (or
 * `@./path`) words outside code spans and fenced blocks, relative to the
 * file's folder, as Claude Code and Gemini CLI read them (Cursor's rules
 * reference files the same way). Wide on purpose: an `@name` that is a
 * mention, not a file, only makes a file of that name need the owner.
 * Paths outside the repository (`@~/…`, `@/etc/…`, `../` past the root) are
 * not the branch's to change and are left out. Any text file is read so,
 * not only markdown (`.cursorrules`, `.goosehints` and rules without an
 * extension import the same way); settings files name paths otherwise
 * (scopes/steering-words.ts) and import nothing here.
 */
export function importsOf(text: string, from: string): string[] {
	if (isSettingsFile(from)) return [];
	const found = new Set<string>();
	let fenced = false;
	for (const line of text.split("\n")) {
		if (/^\s*(```|~~~)/.test(line)) {
			fenced = !fenced;
			continue;
		}
		if (fenced) continue;
		for (const match of line.replace(/`[^`]*`/g, " ").matchAll(/(?:^|\s)@([^\s`<>"']+)/g)) {
			const word = (match[1] ?? "").replace(/[.,;:!?)\]}]+$/, "");
			if (word === "" || word.startsWith("/") || word.startsWith("~") || word.includes("://")) continue;
			const path = posix.normalize(posix.join(posix.dirname(from), word));
			if (path !== "." && !path.startsWith("../") && path !== "..") found.add(path);
		}
	}
	return [...found];
}

function matches(segments: readonly string[], rule: SteeringRule): boolean {
	const length = rule.segments.length;
	const at = (start: number) => start >= 0 && (!rule.rooted || start === 0) && rule.segments.every((segment, offset) => segments[start + offset] === segment);
	// A file's segments end the path; a folder's may sit anywhere on it (the folder itself, or a file under it).
	if (rule.kind === "file") return at(segments.length - length);
	for (let start = 0; start + length <= segments.length; start++) if (at(start)) return true;
	return false;
}

/** Every name a rule is made of: a path none of whose names is one matches no rule (most of a tree, checked quickly). */
const RULE_NAMES = new Set(RULES.flatMap((rule) => rule.segments));

/** A configured or imported path as the tree names it, compared as a disk would: `./docs/x.md` and `docs//x.md` are `docs/x.md`. */
export function normalPath(path: string): string {
	return path
		.split("/")
		.filter((segment) => segment !== "" && segment !== ".")
		.map(asDiskReads)
		.join("/");
}

/** A JSON, JSONC, TOML or YAML file: it names paths in its values (scopes/steering-words.ts), not by `@` imports. */
export function isSettingsFile(path: string): boolean {
	return /\.(json|jsonc|json5|toml|ya?ml)$/i.test(path) || /(^|\/)\.roomodes$/i.test(path);
}
