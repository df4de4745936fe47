import { type Folder, inFolder } from "./folder.ts";

/**
 * The JavaScript tools setup knows, and how it tells one is in use: its
 * configuration file is there, the project depends on it, or package.json
 * carries the key it reads its configuration from.
 */
export interface Tool {
	label: string;
	deps: readonly string[];
	files: readonly string[];
	/** The package.json key some tools read their configuration from. */
	key?: string;
}

const CONFIG_EXTENSIONS = ["js", "mjs", "cjs", "ts", "mts", "cts"];
const configs = (stem: string, extensions: readonly string[] = CONFIG_EXTENSIONS) => extensions.map((ext) => `${stem}.${ext}`);

export const BIOME: Tool = { label: "Biome", deps: ["@biomejs/biome"], files: ["biome.json", "biome.jsonc"] };
export const PRETTIER: Tool = {
	label: "Prettier",
	deps: ["prettier"],
	files: [
		".prettierrc",
		".prettierrc.json",
		".prettierrc.json5",
		".prettierrc.yml",
		".prettierrc.yaml",
		".prettierrc.toml",
		...configs(".prettierrc"),
		...configs("prettier.config"),
	],
	key: "prettier",
};
export const DPRINT: Tool = { label: "dprint", deps: ["dprint"], files: ["dprint.json", ".dprint.json", "dprint.jsonc", ".dprint.jsonc"] };
export const ESLINT: Tool = {
	label: "ESLint",
	deps: ["eslint"],
	files: [...configs("eslint.config"), ".eslintrc", ".eslintrc.js", ".eslintrc.cjs", ".eslintrc.json", ".eslintrc.yml", ".eslintrc.yaml"],
	key: "eslintConfig",
};
export const OXLINT: Tool = { label: "oxlint", deps: ["oxlint"], files: [".oxlintrc.json", "oxlintrc.json"] };
export const VITEST: Tool = { label: "Vitest", deps: ["vitest"], files: [...configs("vitest.config"), ...configs("vitest.workspace")] };
export const JEST: Tool = { label: "Jest", deps: ["jest"], files: [...configs("jest.config"), "jest.config.json"], key: "jest" };
export const MOCHA: Tool = {
	label: "Mocha",
	deps: ["mocha"],
	files: [".mocharc.js", ".mocharc.cjs", ".mocharc.mjs", ".mocharc.yml", ".mocharc.yaml", ".mocharc.json", ".mocharc.jsonc"],
	key: "mocha",
};
export const BUN_TYPES: Tool = { label: "Bun", deps: ["@types/bun", "bun-types"], files: ["bunfig.toml"] };

/** Why `tool` is in use in this folder (naming the file that says so), or null. */
export function whyInUse(tool: Tool, folder: Folder, deps: ReadonlySet<string>, keys: ReadonlySet<string>): string | null {
	const at = (name: string) => inFolder(folder.rel, name);
	const file = tool.files.find((name) => folder.has(name));
	if (file) return `${at(file)} configures ${tool.label}`;
	const dep = tool.deps.find((name) => deps.has(name));
	if (dep) return `${at("package.json")} depends on "${dep}"`;
	if (tool.key && keys.has(tool.key)) return `${at("package.json")} has a "${tool.key}" key`;
	return null;
}
