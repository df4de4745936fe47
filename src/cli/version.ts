import * as v from "valibot";
import { Envelope, ok, type Success } from "../contract/envelope.ts";
import { VERSION } from "../version.ts";

/**
 * `discern --version` as a result. `--version` is a flag, not a verb, but
 * with `--json` it answers like everything else: one envelope,
 * `{"ok":true,"verb":"version","message":"discern 0.1.0","data":{"version":"0.1.0"}}`,
 * so a script reads `.data.version` the way it reads any verb's data.
 */
export const VersionData = v.strictObject({ version: v.pipe(v.string(), v.description("discern's version, e.g. `0.1.0`.")) });
export const VersionEnvelope = Envelope("version", VersionData, []);

export function versionResult(): Success<"version", v.InferOutput<typeof VersionData>> {
	return ok("version", `discern ${VERSION}`, { version: VERSION });
}
