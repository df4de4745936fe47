/**
 * The scale section's repository (issue 23): 50 000 tracked files, ~200 MB,
 * in 100 folders × 50 subfolders × 10 files, each a distinct slice of random
 * text, its size drawn log-uniformly from 256 B to 18 kB (mean ~4.2 kB), so
 * that a look which re-reads every byte shows it. Deterministic (a seeded
 * generator): every run of the bench measures the same tree.
 *
 * Made quickly: the files are written from Bun a folder at a time, then one
 * `git add -A` and one commit (about 10 s on 2 shared cores, most of it git
 * hashing and compressing the 200 MB).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { unstampedHorizon } from "../../src/git/evidence/known-content.ts";
import { commitFixture } from "./setup.ts";

export const SCALE_FOLDERS = 100;
export const SCALE_SUBFOLDERS = 50;
export const SCALE_FILES_PER_SUBFOLDER = 10;
const MIN_BYTES = 256;
const MAX_BYTES = 18_000;
/** Random words to slice files from: large enough that no two files share content by chance. */
const POOL_BYTES = 8 * 1024 * 1024;

/**
 * How long a file's times must be in the past before discern keeps what it read of it between runs
 * (src/git/evidence/known-content.ts: the time bytes can change unstamped, 45 s by default), with a margin.
 */
export function settleMs(root: string): number {
	const horizon = unstampedHorizon(root);
	if (horizon === null)
		throw new Error(
			`${root} is on a file system where discern keeps no facts (tmpfs, an overlay, FUSE, a network file system, or write-back off; or not Linux): put the bench's temp folder on a local disk (TMPDIR)`,
		);
	return Number(horizon.ns / 1_000_000n) + 500;
}

/** `mulberry32`: a small seeded generator; the figures must not depend on Math.random. */
export function seeded(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** Lines of random lowercase words, as ASCII bytes. */
function textPool(random: () => number, bytes: number): Buffer {
	const pool = Buffer.alloc(bytes);
	let column = 0;
	for (let i = 0; i < bytes; i++) {
		const roll = random();
		let byte: number;
		if (column > 60 && roll < 0.2) byte = 0x0a;
		else if (roll < 0.17) byte = 0x20;
		else byte = 0x61 + Math.floor(random() * 26);
		column = byte === 0x0a ? 0 : column + 1;
		pool[i] = byte;
	}
	return pool;
}

/** One file's bytes: its own path first (no two files alike), then a slice of the pool. */
export function fileText(path: string, pool: Buffer, random: () => number): Buffer {
	const size = Math.round(MIN_BYTES * (MAX_BYTES / MIN_BYTES) ** random());
	const start = Math.floor(random() * (pool.length - size));
	return Buffer.concat([Buffer.from(`${path}\n`), pool.subarray(start, start + size)]);
}

export interface ScaleRepo {
	root: string;
	/** Tracked files, discern.toml included. */
	files: number;
	bytes: number;
	/** Every generated file's path relative to the root, for the benchmarks that edit one. */
	paths: readonly string[];
	/** The generator the edits draw from, and the pool their text is sliced from. */
	random: () => number;
	pool: Buffer;
}

/** The repository at `root`, committed on `main` with `discern.toml` (one job: `true`). */
export async function makeScaleRepo(root: string): Promise<ScaleRepo> {
	const random = seeded(23);
	const pool = textPool(random, POOL_BYTES);
	const paths: string[] = [];
	let bytes = 0;
	await mkdir(root, { recursive: true });
	await writeFile(join(root, "discern.toml"), `[jobs]\ntest = "true"\n`);
	for (let folder = 0; folder < SCALE_FOLDERS; folder++) {
		// One folder's 50 subfolders at once: enough writes in flight to keep the disk busy, few enough to stay within open-file limits.
		await Promise.all(
			Array.from({ length: SCALE_SUBFOLDERS }, async (_, sub) => {
				const dir = `pkg${String(folder).padStart(3, "0")}/mod${String(sub).padStart(2, "0")}`;
				await mkdir(join(root, dir), { recursive: true });
				const writes: Promise<void>[] = [];
				for (let file = 0; file < SCALE_FILES_PER_SUBFOLDER; file++) {
					const path = `${dir}/file${file}.txt`;
					const text = fileText(path, pool, random);
					bytes += text.length;
					paths.push(path);
					writes.push(writeFile(join(root, path), text));
				}
				await Promise.all(writes);
			}),
		);
	}
	await commitFixture(root, "A generated repository of 50 000 files");
	return { root, files: paths.length + 1, bytes, paths, random, pool };
}

export async function git(cwd: string, args: readonly string[]): Promise<string> {
	const proc = Bun.spawn(["git", ...args], { cwd, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
	const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
	if (code !== 0) throw new Error(`git ${args.join(" ")} failed in ${cwd} (${code}): ${stderr.trim()}`);
	return stdout;
}
