import { type Folder, inFolder } from "./folder.ts";
import { combine, iniHasSection, isRecord, type PythonManager, type StackFinding, type StackJob, stringsOf, tomlOf } from "./shared.ts";

/** What marks a Python project, in the order the evidence is named. */
const MARKERS = ["pyproject.toml", "setup.cfg", "setup.py", "requirements.txt"] as const;

/** Tools live in the project's environment, so every command goes through the project's runner. */
const PREFIX: Readonly<Record<PythonManager, string>> = { uv: "uv run ", poetry: "poetry run ", pdm: "pdm run ", hatch: "hatch run ", pip: "" };

const REQUIREMENTS = ["requirements.txt", "requirements-dev.txt", "dev-requirements.txt", "requirements_dev.txt"];

export async function detectPython(folder: Folder): Promise<StackFinding | null> {
	const marker = MARKERS.find((name) => folder.has(name));
	if (!marker) return null;
	const at = (name: string) => inFolder(folder.rel, name);
	const pyprojectText = folder.text("pyproject.toml");
	const pyproject = tomlOf(pyprojectText);
	const tools = toolTables(pyproject, pyprojectText);
	const manager = pythonManager(folder, tools, pyproject);
	const deps = dependencies(folder, pyproject);
	const setupCfg = folder.text("setup.cfg");
	const toxIni = folder.text("tox.ini");

	/** Why a tool is in use: its [tool.X] table, its own file, an INI section, or a dependency. */
	const uses = (tool: string, options: { files?: readonly string[]; ini?: readonly string[]; table?: string } = {}): string | null => {
		if (tools.has(tool)) return `${at("pyproject.toml")} has a [tool.${options.table ?? tool}] table`;
		const file = options.files?.find((name) => folder.has(name));
		if (file) return file === "conftest.py" ? `${at(file)} holds pytest fixtures` : `${at(file)} configures ${tool}`;
		for (const section of options.ini ?? []) {
			if (iniHasSection(setupCfg, section)) return `${at("setup.cfg")} has a [${section}] section`;
			if (iniHasSection(toxIni, section)) return `${at("tox.ini")} has a [${section}] section`;
		}
		const declared = deps.get(tool);
		return declared ? `${declared} lists ${tool}` : null;
	};
	const prefix = PREFIX[manager];
	const via = (reason: string | null, run: string) => (reason === null ? null : { run: `${prefix}${run}`, reason });

	const ruff = uses("ruff", { files: ["ruff.toml", ".ruff.toml"] });
	const jobs: StackJob[] = [
		...combine("format", [via(ruff, "ruff format --check ."), via(uses("black"), "black --check .")]),
		...combine("lint", [via(ruff, "ruff check ."), via(uses("flake8", { files: [".flake8"], ini: ["flake8"] }), "flake8")]),
		...combine("typecheck", [
			via(uses("mypy", { files: ["mypy.ini", ".mypy.ini"], ini: ["mypy"] }), "mypy ."),
			via(uses("pyright", { files: ["pyrightconfig.json"] }), "pyright"),
		]),
	];
	const pytest = uses("pytest", { files: ["pytest.ini", "conftest.py"], ini: ["tool:pytest", "pytest"], table: "pytest.ini_options" });
	const tests = pytest ?? (folder.dirs.includes("tests") ? `${at("tests")}/ holds the tests; pytest also runs unittest suites` : null);
	if (tests) jobs.push({ name: "test", run: `${prefix}pytest`, reason: tests });
	return { kind: "python", evidence: at(marker), manager, jobs, projectName: projectName(pyproject), members: [] };
}

/** The names under `[tool]`; a file the parser rejects still gets a header scan, since a typo elsewhere should not hide the linter. */
function toolTables(pyproject: Record<string, unknown> | null, text: string | null): Set<string> {
	if (pyproject) return new Set(isRecord(pyproject.tool) ? Object.keys(pyproject.tool) : []);
	if (text === null) return new Set();
	const headers = text.matchAll(/^\s*\[\s*tool\s*\.\s*"?([A-Za-z0-9_-]+)"?\s*[.\]]/gm);
	return new Set(Array.from(headers, (match) => match[1] ?? ""));
}

/** The lockfile decides; else the runner's own [tool.*] table; else the tools are expected on PATH (an activated environment). */
function pythonManager(folder: Folder, tools: Set<string>, pyproject: Record<string, unknown> | null): PythonManager {
	if (folder.has("uv.lock")) return "uv";
	if (folder.has("poetry.lock")) return "poetry";
	if (folder.has("pdm.lock")) return "pdm";
	if (tools.has("uv")) return "uv";
	if (tools.has("poetry")) return "poetry";
	if (tools.has("pdm")) return "pdm";
	const hatch = isRecord(pyproject?.tool) && isRecord(pyproject.tool.hatch) ? pyproject.tool.hatch : null;
	if (folder.has("hatch.toml") || (hatch && isRecord(hatch.envs))) return "hatch";
	return "pip";
}

/** Every declared dependency, normalized (`Flake8` → `flake8`), with the file that declares it. */
function dependencies(folder: Folder, pyproject: Record<string, unknown> | null): Map<string, string> {
	const found = new Map<string, string>();
	const add = (specs: readonly string[], file: string) => {
		for (const spec of specs) {
			const name = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(spec)?.[1];
			if (name) {
				const normalized = name.toLowerCase().replace(/[._]+/g, "-");
				if (!found.has(normalized)) found.set(normalized, file);
			}
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
		if (text !== null) add(text.split(/\r?\n/).filter((line) => !/^\s*(#|-)/.test(line)), inFolder(folder.rel, file));
	}
	return found;
}

function projectName(pyproject: Record<string, unknown> | null): string | null {
	const project = isRecord(pyproject?.project) ? pyproject.project : null;
	if (typeof project?.name === "string" && project.name.trim() !== "") return project.name;
	const tool = isRecord(pyproject?.tool) ? pyproject.tool : null;
	const poetry = isRecord(tool?.poetry) ? tool.poetry : null;
	return typeof poetry?.name === "string" && poetry.name.trim() !== "" ? poetry.name : null;
}
