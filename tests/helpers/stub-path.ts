import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { makeTempDir } from "./repo.ts";

/**
 * A PATH holding a stub `discern`, so the command refresh writes is `discern`
 * whoever runs the test. The folder is pushed onto `cleanup`.
 */
export async function pathWithDiscern(cleanup: string[]): Promise<string> {
	const bin = await makeTempDir("discern-bin-");
	cleanup.push(bin);
	await writeFile(join(bin, "discern"), "#!/bin/sh\nexit 0\n");
	await chmod(join(bin, "discern"), 0o755);
	return `${bin}:${process.env.PATH ?? ""}`;
}
