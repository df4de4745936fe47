import type { Result } from "../../contract/envelope.ts";
import type { RenderOptions } from "../../contract/verb.ts";
import type { ConfigData } from "./schema.ts";

/** Problems with their lines; for `get`, the value itself (a string bare, anything else as JSON). */
export function renderConfigResult(result: Result<"config validate" | "config get" | "config set", ConfigData>, _options: RenderOptions): string {
	const data = result.data;
	if (!data) return "";
	if (data.issues.length > 0) {
		return data.issues.map((issue) => `${data.path}${issue.line ? `:${issue.line}${issue.col ? `:${issue.col}` : ""}` : ""}  ${issue.message}`).join("\n");
	}
	if (result.verb === "config get" && data.value !== undefined) {
		return typeof data.value === "string" ? data.value : JSON.stringify(data.value, null, 2);
	}
	return "";
}
