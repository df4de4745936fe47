/**
 * Compile discern into one executable.
 *   bun build.ts          → dist/discern for this machine
 *   bun build.ts --all    → every release target in dist/, plus dist/SHA256SUMS
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";

const ROOT = import.meta.dir;
const DIST = join(ROOT, "dist");
const RELEASE_TARGETS = ["bun-linux-x64", "bun-linux-arm64", "bun-darwin-x64", "bun-darwin-arm64"] as const;

async function compile(outfile: string, target?: string): Promise<void> {
	const result = await Bun.build({
		// The evidence's worker thread is an entry of its own: a compiled binary finds it only so (hash-jobs.ts).
		entrypoints: [join(ROOT, "src/main.ts"), join(ROOT, "src/git/evidence/hash-worker.ts")],
		minify: true,
		// Bytecode roughly halves start-up; it requires ESM output.
		bytecode: true,
		format: "esm",
		// Lazily imported code (the MCP SDK, verb cores) stays out of start-up.
		splitting: true,
		sourcemap: "none",
		compile: {
			outfile,
			...(target ? { target: target as Bun.Build.CompileTarget } : {}),
			// The binary runs inside other people's repositories: never pick up their bunfig or .env.
			autoloadBunfig: false,
			autoloadDotenv: false,
			// Any embedded runtime flag makes the executable start where its working folder was deleted (accept
			// removes the worktree a shell may stand in): without one, Bun 1.4's standalone start-up reads the
			// working folder before any of discern runs and exits with its own one-line error. With one, discern
			// runs, finds the folder gone, and answers with its envelope (platform/working-folder.ts). This flag
			// is chosen for doing nothing else: discern uses no deprecated runtime API.
			execArgv: ["--no-deprecation"],
		},
	});
	if (!result.success) {
		for (const log of result.logs) console.error(log);
		throw new Error(`build failed for ${target ?? "this machine"}`);
	}
	console.log(`built ${outfile.replace(`${ROOT}/`, "")}`);
}

await mkdir(DIST, { recursive: true });
if (process.argv.includes("--all")) {
	const sums: string[] = [];
	for (const target of RELEASE_TARGETS) {
		const outfile = join(DIST, `discern-${target.replace(/^bun-/, "")}`);
		await compile(outfile, target);
		sums.push(
			`${createHash("sha256")
				.update(await readFile(outfile))
				.digest("hex")}  ${basename(outfile)}`,
		);
	}
	await writeFile(join(DIST, "SHA256SUMS"), `${sums.join("\n")}\n`);
	console.log("wrote dist/SHA256SUMS");
} else {
	await compile(join(DIST, "discern"));
}
