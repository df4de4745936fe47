import { isRecord } from "../contract/record.ts";
import { type Folder, inFolder } from "./folder.ts";
import { pythonNeeds } from "./installs.ts";
import { pythonOutputs } from "./outputs.ts";
import { dependencies, projectName } from "./python-deps.ts";
import { combine, iniHasSection, type PythonManager, type StackFinding, type StackJob, tomlOf } from "./shared.ts";

/** What marks a Python project, in the order the evidence is named. */
const MARKERS = ["pyproject.toml", "setup.cfg", "setup.py", "requirements.txt"] as const;

/** Tools live in the project's environment, so every command goes through the project's runner. */
const PREFIX: Readonly<Record<PythonManager, string>> = { uv: "uv run ", poetry: "poetry run ", pdm: "pdm run ", hatch: "hatch run ", pip: "" };

/** Why a tool is in use, and the Hatch environment other than the default that holds it. */
interface Use {
	reason: string;
	env?: string;
}

export async function detectPython(folder: Folder): Promise<StackFinding | null> {
	const marker = MARKERS.find((name) => folder.has(name));
	if (!marker) return null;
	const at = (name: string) => inFolder(folder.rel, name);
	const pyprojectText = folder.text("pyproject.toml");
	const pyproject = tomlOf(pyprojectText);
	const tools = toolTables(pyproject, pyprojectText);
	const manager = pythonManager(folder, tools, pyproject);
	// A Hatch environment's dependencies are tools only where `hatch run` is what runs them.
	const deps = dependencies(folder, pyproject, manager === "hatch");
	const setupCfg = folder.text("setup.cfg");
	const toxIni = folder.text("tox.ini");

	/** Why a tool is in use: its [tool.X] table, its own file, an INI section, or a dependency. */
	const uses = (tool: string, options: { files?: readonly string[]; ini?: readonly string[]; table?: string } = {}): Use | null => {
		if (tools.has(tool)) return { reason: `${at("pyproject.toml")} has a [tool.${options.table ?? tool}] table` };
		const file = options.files?.find((name) => folder.has(name));
		if (file) return { reason: file === "conftest.py" ? `${at(file)} holds pytest fixtures` : `${at(file)} configures ${tool}` };
		for (const section of options.ini ?? []) {
			if (iniHasSection(setupCfg, section)) return { reason: `${at("setup.cfg")} has a [${section}] section` };
			if (iniHasSection(toxIni, section)) return { reason: `${at("tox.ini")} has a [${section}] section` };
		}
		const declared = deps.get(tool);
		if (!declared) return null;
		if (declared.hatchEnv === undefined) return { reason: `${declared.file} lists ${tool}` };
		if (declared.hatchEnv === "default") return { reason: `${declared.file} lists ${tool} in Hatch's default environment` };
		return { reason: `${declared.file} lists ${tool} in Hatch's "${declared.hatchEnv}" environment`, env: declared.hatchEnv };
	};
	const via = (use: Use | null, run: string) => {
		if (use === null) return null;
		// A tool of another Hatch environment runs in it: `hatch run lint:ruff check .`.
		const prefix = use.env !== undefined ? `hatch run ${use.env}:` : PREFIX[manager];
		return { run: `${prefix}${run}`, reason: use.reason };
	};

	const ruff = uses("ruff", { files: ["ruff.toml", ".ruff.toml"] });
	const jobs: StackJob[] = [
		...combine(
			"format",
			formatters(ruff, uses("black"), tools.has("black") && !ruffFormats(pyproject)).map(([use, run]) => via(use, run)),
		),
		...combine("lint", [via(ruff, "ruff check ."), via(uses("flake8", { files: [".flake8"], ini: ["flake8"] }), "flake8")]),
		...combine("typecheck", [
			via(uses("mypy", { files: ["mypy.ini", ".mypy.ini"], ini: ["mypy"] }), "mypy ."),
			via(uses("pyright", { files: ["pyrightconfig.json"] }), "pyright"),
		]),
	];
	const pytest = uses("pytest", { files: ["pytest.ini", "conftest.py"], ini: ["tool:pytest", "pytest"], table: "pytest.ini_options" });
	const tests = via(
		pytest ?? (folder.dirs.includes("tests") ? { reason: `${at("tests")}/ holds the tests; pytest also runs unittest suites` } : null),
		"pytest",
	);
	if (tests) jobs.push({ name: "test", ...tests });
	return {
		kind: "python",
		evidence: at(marker),
		manager,
		jobs,
		outputs: pythonOutputs(manager, jobs),
		needs: jobs.length > 0 ? pythonNeeds(folder, manager) : { installs: [], seeds: [] },
		projectName: projectName(pyproject, setupCfg),
		members: [],
	};
}

/**
 * The format checks. Ruff formats and Black formats; with a [tool.black]
 * table (and no [tool.ruff.format] one) the project formats with Black, and
 * Ruff, when it is there too, only lints: both checks would be two
 * formatters' opinions of one file, and the first disagreement a red gate.
 */
function formatters(ruff: Use | null, black: Use | null, blackFormats: boolean): Array<[Use | null, string]> {
	if (blackFormats && black && ruff) return [[{ ...black, reason: `${black.reason}: Black formats, Ruff only lints` }, "black ."]];
	return [
		[ruff, "ruff format ."],
		[black, "black ."],
	];
}

/** pyproject.toml configures Ruff's formatter ([tool.ruff.format]). */
function ruffFormats(pyproject: Record<string, unknown> | null): boolean {
	const tool = isRecord(pyproject?.tool) ? pyproject.tool : null;
	const ruff = isRecord(tool?.ruff) ? tool.ruff : null;
	return isRecord(ruff?.format);
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
