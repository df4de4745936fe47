import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { VERSION } from "../version.ts";

/** Write a short crash report and return its path (or null if even that failed). */
export function writeCrashReport(error: unknown, argv: readonly string[]): string | null {
	const path = join(tmpdir(), `discern-crash-${Date.now()}-${process.pid}.txt`);
	const report = [
		`discern ${VERSION} crashed`,
		`time: ${new Date().toISOString()}`,
		`argv: ${JSON.stringify(argv)}`,
		`platform: ${process.platform}-${process.arch}, bun ${Bun.version}`,
		"",
		error instanceof Error ? (error.stack ?? error.message) : String(error),
		"",
	].join("\n");
	try {
		writeFileSync(path, report, { mode: 0o600 });
		return path;
	} catch {
		return null;
	}
}
