import { isAbsolute } from "node:path";
import { errorCode } from "./error-code.ts";

/**
 * The folder discern was started in. When it was deleted under the caller
 * (an `accept` run inside the worktree it then removed leaves the shell
 * standing in nothing), the process has no working folder at all: the shell's
 * PWD still names where the person thinks they are, so that is the folder a
 * verb is asked to work in, and finds missing (a `no_repository` refusal
 * that can point at the main checkout). discern then moves to / so that no
 * process it starts inherits a folder that is gone.
 */
export function workingFolder(env: Readonly<Record<string, string | undefined>>): string {
	try {
		return process.cwd();
	} catch (error) {
		if (errorCode(error) !== "ENOENT") throw error;
		process.chdir("/");
		const shellSays = env.PWD;
		return shellSays && isAbsolute(shellSays) ? shellSays : DELETED_FOLDER;
	}
}

/** What a deleted working folder is called when the environment does not say where it was. */
export const DELETED_FOLDER = "/(deleted working folder)";
