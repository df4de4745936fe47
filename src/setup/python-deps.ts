import { isRecord } from "../contract/record.ts";
import { type Folder, inFolder } from "./folder.ts";
import { iniValue, stringsOf, tomlOf } from "./shared.ts";

/**
 * What a Python project's manifests declare: its dependencies (the tools
 * among them are the ones its jobs can run) and its name.
 */

/** Where a dependency is declared, and the Hatch environment that installs it when one does. */
export interface Declared {
	file: string;
	/** `default`, or another Hatch environment (whose tools run with `hatch run <env>:`). */
	hatchEnv?: string;
}

const REQUIREMENTS = ["requirements.txt", "requirements-dev.txt", "dev-requirements.txt", "requirements_dev.txt"];

/** A Hatch environment name that needs no quoting in `hatch run <env>:tool`. */
const ENV_NAME = /^[A-Za-z0-9._-]+$/;

/**
 * Every declared dependency, normalized (`Flake8` → `flake8`), with the file
 * that declares it. With Hatch as the runner (`hatch`), its environments'
 * dependencies count too: the default environment's run with plain `hatch
 * run`, another's in that environment (a dependency the project declares
 * itself, or the default environment installs, is in every environment).
 */
export function dependencies(folder: Folder, pyproject: Record<string, unknown> | null, hatch: boolean): Map<string, Declared> {
	const found = new Map<string, Declared>();
	const add = (specs: readonly string[], file: string, hatchEnv?: string) => {
		for (const spec of specs) {
			const name = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(spec)?.[1];
			if (!name) continue;
			const normalized = name.toLowerCase().replace(/[._]+/g, "-");
			if (!found.has(normalized)) found.set(normalized, hatchEnv === undefined ? { file } : { file, hatchEnv });
		}
	};
	const pyprojectFile = inFolder(folder.rel, "pyproject.toml");
	if (pyproject) {
		const project = isRecord(pyproject.project) ? pyproject.project : {};
		add(stringsOf(project.dependencies), pyprojectFile);
		for (const group of Object.values(isRecord(project["optional-dependencies"]) ? project["optional-dependencies"] : {})) add(stringsOf(group), pyprojectFile);
		for (const group of Object.values(isRecord(pyproject["dependency-groups"]) ? pyproject["dependency-groups"] : {})) add(stringsOf(group), pyprojectFile);
		const tool = isRecord(pyproject.tool) ? pyproject.tool : {};
		const poetry = isRecord(tool.poetry) ? tool.poetry : {};
		for (const table of [poetry.dependencies, poetry["dev-dependencies"]]) if (isRecord(table)) add(Object.keys(table), pyprojectFile);
		for (const group of Object.values(isRecord(poetry.group) ? poetry.group : {})) {
			if (isRecord(group) && isRecord(group.dependencies)) add(Object.keys(group.dependencies), pyprojectFile);
		}
		const pdm = isRecord(tool.pdm) ? tool.pdm : {};
		for (const group of Object.values(isRecord(pdm["dev-dependencies"]) ? pdm["dev-dependencies"] : {})) add(stringsOf(group), pyprojectFile);
		const uv = isRecord(tool.uv) ? tool.uv : {};
		add(stringsOf(uv["dev-dependencies"]), pyprojectFile);
	}
	for (const file of REQUIREMENTS) {
		const text = folder.text(file);
		if (text !== null)
			add(
				text.split(/\r?\n/).filter((line) => !/^\s*(#|-)/.test(line)),
				inFolder(folder.rel, file),
			);
	}
	if (hatch) {
		for (const { envs, file } of hatchEnvTables(folder, pyproject)) {
			// The default environment first: its tools run in every environment.
			const names = Object.keys(envs).sort((a, b) => Number(b === "default") - Number(a === "default"));
			for (const name of names) {
				const env = envs[name];
				if (!isRecord(env) || !ENV_NAME.test(name)) continue;
				const declared = [...stringsOf(env.dependencies), ...stringsOf(env["extra-dependencies"])];
				add(declared, file, name);
			}
		}
	}
	return found;
}

/** `[tool.hatch.envs]` of pyproject.toml, and `[envs]` of hatch.toml (which Hatch reads first). */
function hatchEnvTables(folder: Folder, pyproject: Record<string, unknown> | null): Array<{ envs: Record<string, unknown>; file: string }> {
	const tables: Array<{ envs: Record<string, unknown>; file: string }> = [];
	const own = folder.text("hatch.toml");
	if (own !== null) {
		const parsed = tomlOf(own);
		if (isRecord(parsed?.envs)) tables.push({ envs: parsed.envs, file: inFolder(folder.rel, "hatch.toml") });
	}
	const tool = isRecord(pyproject?.tool) ? pyproject.tool : {};
	const hatch = isRecord(tool.hatch) ? tool.hatch : {};
	if (isRecord(hatch.envs)) tables.push({ envs: hatch.envs, file: inFolder(folder.rel, "pyproject.toml") });
	return tables;
}

/** The project's name: pyproject's [project] or [tool.poetry], else setup.cfg's [metadata]. */
export function projectName(pyproject: Record<string, unknown> | null, setupCfg: string | null): string | null {
	const project = isRecord(pyproject?.project) ? pyproject.project : null;
	if (typeof project?.name === "string" && project.name.trim() !== "") return project.name;
	const tool = isRecord(pyproject?.tool) ? pyproject.tool : null;
	const poetry = isRecord(tool?.poetry) ? tool.poetry : null;
	if (typeof poetry?.name === "string" && poetry.name.trim() !== "") return poetry.name;
	return iniValue(setupCfg, "metadata", "name");
}
