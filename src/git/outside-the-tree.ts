import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { quoteName } from "../text/terminal.ts";
import type { git } from "./run.ts";

/**
 * What could make git hash a file to its committed blob although its bytes
 * differ, set from outside the commit under test. The evidence index
 * already switches off what configuration can switch off (global and system
 * attributes, autocrlf, eol, file mode, symlinks); these are the sources it
 * cannot switch off, checked per repository (submodules have their own):
 *
 * - `$GIT_COMMON_DIR/info/attributes` assigning a transforming attribute;
 * - a `.gitattributes` file that is not part of the commit (untracked,
 *   ignored or excluded locally);
 * - a `filter` driver in use by a tracked file whose clean command is not a
 *   well-known content-preserving one: git hashes whatever it prints.
 *
 * Each problem names its file or driver.
 */
const TRANSFORMING = new Set(["filter", "ident", "text", "eol", "crlf", "working-tree-encoding"]);

/**
 * Filter programs whose clean output is the file's content in another form
 * (a large-file pointer, ciphertext, a notebook without outputs). A driver
 * that runs anything else could print the committed blob for any bytes.
 */
const KNOWN_FILTERS = new Set(["git-lfs", "git-crypt", "nbstripout"]);

type Git = (args: readonly string[], options?: { input?: string }) => ReturnType<typeof git>;

export async function contentTransformedFromOutside(run: Git, commonDir: string, tracked: readonly string[]): Promise<string[]> {
	const [info, stray, filters] = await Promise.all([infoAttributes(commonDir), strayAttributeFiles(run, tracked), unknownFiltersInUse(run, tracked)]);
	return [...info, ...stray, ...filters];
}

async function infoAttributes(commonDir: string): Promise<string[]> {
	const path = join(commonDir, "info/attributes");
	const names = transformingAttributes(await readFile(path, "utf8").catch(() => ""));
	return names.length > 0 ? [`${quoteName(path)} sets ${names.map((name) => `\`${name}\``).join(", ")}`] : [];
}

/**
 * `.gitattributes` files in the folder that the commit does not hold (an
 * untracked one is also dirty; an ignored one is not), where they apply to
 * tracked files: one inside an ignored folder (every package in
 * node_modules ships some) governs only files git does not track.
 */
async function strayAttributeFiles(run: Git, tracked: readonly string[]): Promise<string[]> {
	const listed = await run(["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--", ":(glob)**/.gitattributes"]);
	if (listed.exitCode !== 0) return ["git could not list the attribute files that are not committed"];
	const strays = listed.stdout.split("\0").filter((path) => path !== "");
	if (strays.length === 0) return [];
	const folders = foldersHolding(tracked);
	return strays
		.filter((path) => folders.has(path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : ""))
		.map((path) => `${quoteName(path)} is not committed (it is ignored or excluded locally) yet git reads its attributes`);
}

/** Every folder that holds a tracked path at any depth ("" is the root). */
function foldersHolding(paths: readonly string[]): Set<string> {
	const folders = new Set<string>([""]);
	for (const path of paths) {
		for (let slash = path.indexOf("/"); slash >= 0; slash = path.indexOf("/", slash + 1)) folders.add(path.slice(0, slash));
	}
	return folders;
}

async function unknownFiltersInUse(run: Git, tracked: readonly string[]): Promise<string[]> {
	const configured = await run(["config", "-z", "--get-regexp", "^filter\\..*\\.(clean|process)$"]);
	// Exit 1: no filter configured at all, the common case.
	if (configured.exitCode !== 0) return [];
	const unknown = new Map<string, string>();
	for (const entry of configured.stdout.split("\0")) {
		const newline = entry.indexOf("\n");
		if (newline < 0) continue;
		const key = entry.slice(0, newline);
		const driver = key.slice("filter.".length, key.lastIndexOf("."));
		const program = entry.slice(newline + 1).trim().split(/\s+/)[0] ?? "";
		if (!KNOWN_FILTERS.has(program.split("/").pop() ?? "")) unknown.set(driver, program);
	}
	if (unknown.size === 0 || tracked.length === 0) return [];
	const attributes = await run(["check-attr", "--stdin", "-z", "filter"], { input: `${tracked.join("\0")}\0` });
	if (attributes.exitCode !== 0) return ["git could not tell which filters apply to the tracked files"];
	// Records of three fields: path, attribute, value.
	const fields = attributes.stdout.split("\0");
	const used = new Map<string, string>();
	for (let i = 0; i + 2 < fields.length; i += 3) {
		const path = fields[i] ?? "";
		const value = fields[i + 2] ?? "";
		if (unknown.has(value) && !used.has(value)) used.set(value, path);
	}
	return [...used].map(([driver, path]) => `the filter \`${driver}\` (clean: \`${unknown.get(driver)}\`) rewrites ${quoteName(path)} before git compares it`);
}

/** The transforming attributes a gitattributes text sets (not unsets: `-text` and `!eol` convert nothing). */
export function transformingAttributes(text: string): string[] {
	const names = new Set<string>();
	for (const raw of text.split(/\r?\n/)) {
		const line = raw.trim();
		if (line === "" || line.startsWith("#")) continue;
		// The first field is the pattern (or `[attr]name` for a macro); attributes follow.
		const [, ...attributes] = line.split(/\s+/);
		for (const attribute of attributes) {
			if (attribute.startsWith("-") || attribute.startsWith("!")) continue;
			const name = attribute.split("=")[0] ?? "";
			if (TRANSFORMING.has(name)) names.add(name);
		}
	}
	return [...names].sort();
}
