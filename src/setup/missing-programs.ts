import { parseCommands } from "../text/shell-words.ts";
import type { ProposedJob } from "./detect.ts";
import { checkCommand } from "./programs.ts";

/**
 * What setup says of a proposed job whose program does not resolve here
 * (issue 22, item 2): "`uv` is not installed here", with how to get it,
 * before anything is written, rather than a job that only `doctor` or the
 * first `prepare` finds cannot start. Looked up the way `setup verify` does
 * (programs.ts): PATH, node_modules/.bin, the project's virtualenv, scripts.
 */
export async function missingProgramNotes(
	root: string,
	jobs: ReadonlyArray<Pick<ProposedJob, "name" | "run">>,
	env: Readonly<Record<string, string | undefined>>,
): Promise<Map<string, string>> {
	const notes = new Map<string, string>();
	for (const job of jobs) {
		const missing = [...new Set((await checkCommand(root, job.name, job.run, env)).filter((check) => !check.found).map((check) => check.program))];
		if (missing.length > 0) notes.set(job.name, missing.map((program) => `\`${program}\` is not installed here (${installHint(program, job.run)})`).join("; "));
	}
	return notes;
}

/** How to get the programs a proposal names most often. */
const INSTALL: Readonly<Record<string, string>> = {
	uv: "install uv: https://docs.astral.sh/uv/getting-started/installation/",
	poetry: "install Poetry: https://python-poetry.org/docs/#installation",
	pdm: "install PDM: https://pdm-project.org/en/latest/#installation",
	hatch: "install Hatch: https://hatch.pypa.io/latest/install/",
	pnpm: "`corepack enable`, or https://pnpm.io/installation",
	yarn: "`corepack enable`, or https://yarnpkg.com/getting-started/install",
	bun: "install Bun: https://bun.sh",
	bunx: "install Bun: https://bun.sh",
	node: "install Node.js: https://nodejs.org",
	npm: "install Node.js: https://nodejs.org",
	npx: "install Node.js: https://nodejs.org",
	cargo: "install Rust with rustup: https://rustup.rs",
	go: "install Go: https://go.dev/dl/",
	gofmt: "install Go: https://go.dev/dl/",
	"golangci-lint": "https://golangci-lint.run/welcome/install/",
	make: "install make with the system's package manager",
};

/** The command that installs a project's own tools, by the runner the job starts them through. */
const PROJECT_INSTALL: Readonly<Record<string, string>> = {
	npx: "npm install",
	npm: "npm install",
	pnpm: "pnpm install",
	yarn: "yarn install",
	bun: "bun install",
	bunx: "bun install",
	uv: "uv sync",
	poetry: "poetry install",
	pdm: "pdm install",
};

function installHint(program: string, run: string): string {
	const known = INSTALL[program];
	if (known) return known;
	// A tool the job starts through the project's runner comes with the project's dependencies.
	const runner = parseCommands(run)
		.map((command) => command.words[0])
		.find((word) => word !== undefined && word !== "cd");
	const install = runner === undefined ? undefined : PROJECT_INSTALL[runner];
	if (install) return `the project's dependencies are not installed: \`${install}\``;
	return `install ${program}, or change the job's command`;
}
