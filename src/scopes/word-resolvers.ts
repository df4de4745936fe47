/**
 * How the programs a steering file starts turn a word into the files they
 * run or read: a shell's quoting and globs, an interpreter's module
 * lookup, a task runner's file. Each function answers for one resolver
 * and says which; scopes/steering-words.ts asks them for every word of a
 * settings string, a script or an agent's markdown. Wide on purpose: a
 * candidate that names nothing in the tree is dropped there, and one file
 * too many only costs the owner a question.
 */

/**
 * A command line split into words as `sh` splits and unquotes it: blanks
 * and operators (`; | & ( ) < >`, and the backquote and `!` that start a
 * command inside markdown's !`cmd`) end a word; a backslash keeps the next
 * character (`ho\ok.sh` is `hook.sh`); single quotes keep everything up to
 * the next one; double quotes keep everything but `\` before `$ \` " \\`
 * and a newline. Variables are left as written (`$CLAUDE_PROJECT_DIR/x`).
 */
export function shWords(value: string): string[] {
	const words: string[] = [];
	let word = "";
	let started = false;
	const end = () => {
		if (started) words.push(word);
		word = "";
		started = false;
	};
	for (let at = 0; at < value.length; at++) {
		const char = value[at] ?? "";
		if (char === "\\") {
			at++;
			const next = value[at];
			if (next !== undefined && next !== "\n") word += next;
			started = true;
		} else if (char === "'") {
			const close = value.indexOf("'", at + 1);
			const stop = close < 0 ? value.length : close;
			word += value.slice(at + 1, stop);
			started = true;
			at = stop;
		} else if (char === '"') {
			for (at++; at < value.length && value[at] !== '"'; at++) {
				let kept = value[at] ?? "";
				if (kept === "\\" && '$`"\\\n'.includes(value[at + 1] ?? "-")) {
					at++;
					kept = value[at] === "\n" ? "" : (value[at] ?? "");
				}
				word += kept;
			}
			started = true;
		} else if (/[\s;|&()<>`!]/.test(char)) end();
		else {
			word += char;
			started = true;
		}
	}
	end();
	return words;
}

/**
 * Whether a word is a pattern `sh` expands against the tree (`bin/*.sh`,
 * `hooks/[ab].py`, `x/{a,b}.sh`, brace expansion being bash's and zsh's).
 */
export function isGlobWord(word: string): boolean {
	return /[*?[{]/.test(word);
}

/** What Node, Deno, Bun, tsx and ts-node try for a module path without its extension (`node tools/srv`, `node -r x`, `tsx x`, `bun x`, `deno run x`), with Python's, Ruby's and a shell script's. */
const EXTENSIONS = ["js", "mjs", "cjs", "ts", "mts", "cts", "jsx", "tsx", "py", "sh", "bash", "rb"];
/** What Node and the TypeScript runners load for a folder (`node tools/srv` → tools/srv/index.js). */
const FOLDER_INDEXES = ["index.js", "index.mjs", "index.cjs", "index.ts", "index.mts", "index.cts"];
/** What Python runs for a package: `python tools` and `python -m tools` run `__main__.py`; importing it runs `__init__.py`. */
const PYTHON_PACKAGE = ["__init__.py", "__main__.py"];

/**
 * The files an interpreter may run for a path: the path itself, the path
 * with each extension a runner tries (Node's and the TypeScript runners'
 * resolution, Python's, Ruby's), a folder's index file (Node) or
 * `__init__.py`/`__main__.py` (Python). A dotted module name
 * (`python3 -m tools.hook`, `-mtools.hook`, a pyproject entry point
 * `tools.hook:main`) is read as Python reads it: `tools/hook.py`, or the
 * package `tools/hook/`.
 */
export function interpreterCandidates(path: string): string[] {
	const found = new Set<string>();
	for (const stem of interpreterStems(path)) {
		found.add(stem);
		for (const extension of EXTENSIONS) found.add(`${stem}.${extension}`);
		for (const index of [...FOLDER_INDEXES, ...PYTHON_PACKAGE]) found.add(`${stem}/${index}`);
	}
	return [...found];
}

/** The paths `interpreterCandidates` extends: the word itself, and a dotted Python module as a path. */
export function interpreterStems(path: string): string[] {
	const module = /^(?:-m)?([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+)(?::[A-Za-z0-9_.]*)?$/.exec(path)?.[1];
	return module ? [path, module.replace(/\./g, "/")] : [path];
}

/**
 * The names a file is reached by, the reverse of `interpreterCandidates`
 * and `runnerFiles`: the file itself, without its extension
 * (`tools/srv.js` → `tools/srv`), the folder of an index or `__init__.py`
 * (`tools/srv/index.js` → `tools/srv`), and the folder a runner's file is
 * in (`sub/Makefile` → `sub`). A word none of whose candidates is one of
 * these names no file, so it is looked up once, not once per candidate.
 */
export function reachedAs(path: string): string[] {
	const names = [path];
	const slash = path.lastIndexOf("/");
	const folder = slash < 0 ? "." : path.slice(0, slash);
	const name = path.slice(slash + 1);
	const dot = name.lastIndexOf(".");
	if (dot > 0 && EXTENSIONS.includes(name.slice(dot + 1))) names.push(path.slice(0, path.length - name.length + dot));
	if ([...FOLDER_INDEXES, ...PYTHON_PACKAGE].includes(name) || isRunnerFile(path)) names.push(folder);
	return names;
}

/**
 * The files a task runner reads in the folder it starts in, by the
 * runner's name: each runs what its file says, so the file is what the
 * command runs. `make TARGET` reads GNUmakefile, makefile or Makefile
 * (`make -f F` names F, a word of its own); `just` its justfile;
 * `npm run X`, `npm test`, `pnpm X`, `yarn X`, `bun run X` and `npx` the
 * package.json scripts and bins; `uv run` and `poetry run` pyproject.toml
 * (its scripts and the project's entry points); `task` its Taskfile;
 * `rake` its Rakefile.
 */
const RUNNER_FILES: Readonly<Record<string, readonly string[]>> = {
	make: ["GNUmakefile", "makefile", "Makefile"],
	gmake: ["GNUmakefile", "makefile", "Makefile"],
	just: ["justfile", "Justfile", ".justfile"],
	npm: ["package.json"],
	npx: ["package.json"],
	pnpm: ["package.json"],
	pnpx: ["package.json"],
	yarn: ["package.json"],
	bun: ["package.json"],
	bunx: ["package.json"],
	uv: ["pyproject.toml"],
	uvx: ["pyproject.toml"],
	poetry: ["pyproject.toml"],
	task: ["Taskfile.yml", "Taskfile.yaml", "taskfile.yml", "taskfile.yaml"],
	rake: ["Rakefile", "rakefile"],
};

/** The files the runners among `words` read (`make agent-hook` → Makefile), to be looked up in the folder a command starts in. */
export function runnerFiles(words: Iterable<string>): string[] {
	const found = new Set<string>();
	for (const word of words) for (const name of RUNNER_FILES[word.replace(/^.*\//, "").toLowerCase()] ?? []) found.add(name);
	return [...found];
}

/**
 * Files a runner reads as a list of commands, whatever their extension
 * says: they are read word by word as a script is, naming files (not
 * folders: `biome check src` in a package.json script checks `src`, it
 * does not run it).
 */
export function isRunnerFile(path: string): boolean {
	const name = path.replace(/^.*\//, "").toLowerCase();
	return Object.values(RUNNER_FILES).some((names) => names.some((known) => known.toLowerCase() === name));
}
