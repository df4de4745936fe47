import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { capture } from "../platform/process.ts";

/**
 * A worktree's provisioned resources, as `start` records them in the shared
 * ledger (`<commonDir>/discern/resources/<id>.json`) before creating each.
 * Minimal reader: `start`'s own module replaces this one.
 */
interface LedgerEntry {
	name: string;
	destroy: string;
}

export interface Destroyed {
	ok: boolean;
	destroyed: string[];
	failed: { name: string; message: string }[];
}

function entriesOf(raw: unknown): LedgerEntry[] {
	const list = Array.isArray(raw) ? raw : raw && typeof raw === "object" && Array.isArray((raw as { resources?: unknown }).resources) ? (raw as { resources: unknown[] }).resources : [];
	return list.flatMap((entry) => {
		if (!entry || typeof entry !== "object") return [];
		const { name, destroy } = entry as { name?: unknown; destroy?: unknown };
		return typeof name === "string" && typeof destroy === "string" ? [{ name, destroy }] : [];
	});
}

/** Destroy a worktree's resources in reverse order of creation; ok when there is no ledger. */
export async function destroyResources(commonDir: string, id: string, options: { cwd: string; env: Record<string, string>; signal: AbortSignal }): Promise<Destroyed> {
	const path = join(commonDir, "discern", "resources", `${id}.json`);
	let text: string;
	try {
		text = await readFile(path, "utf8");
	} catch {
		return { ok: true, destroyed: [], failed: [] };
	}
	let entries: LedgerEntry[];
	try {
		entries = entriesOf(JSON.parse(text));
	} catch {
		return { ok: false, destroyed: [], failed: [{ name: "(ledger)", message: `the resource ledger ${path} is not valid JSON` }] };
	}
	const destroyed: string[] = [];
	const failed: Destroyed["failed"] = [];
	for (const entry of [...entries].reverse()) {
		// The command comes from the project's own discern.toml, recorded by `start`.
		const run = await capture(["sh", "-c", entry.destroy], { cwd: options.cwd, env: options.env, signal: options.signal });
		if (run.exitCode === 0) destroyed.push(entry.name);
		else failed.push({ name: entry.name, message: `destroy exited ${run.exitCode}` });
	}
	return { ok: failed.length === 0, destroyed, failed };
}
