import type { RefreshData } from "../../agents/refresh-schema.ts";
import type { Result } from "../../contract/envelope.ts";
import type { RenderOptions } from "../../contract/verb.ts";
import { joinLines } from "../../render/result-lines.ts";

/** Each file with its action, then the command agents start. */
export function renderRefresh(result: Result<"refresh", RefreshData>, _options: RenderOptions): string {
	const data = result.data;
	if (!data) return "";
	const width = Math.max(0, ...data.files.map((file) => file.path.length));
	const lines = data.files.map((file) => `  ${file.path.padEnd(width)}  ${file.action}`);
	if (data.command) lines.push("", `  server  ${[data.command.command, ...data.command.args].join(" ")}`);
	return joinLines(lines);
}
