import type { Result } from "../../contract/envelope.ts";
import type { RenderOptions } from "../../contract/verb.ts";
import { MARK, paint } from "../../render/style.ts";
import type { DoctorData } from "./schema.ts";

const STYLE = { ok: "green", warn: "yellow", fail: "red" } as const;

export function renderDoctor(result: Result<"doctor", DoctorData>, { color, verbose }: RenderOptions): string {
	const data = result.data;
	if (!data) return "";
	const lines: string[] = [];
	for (const check of data.checks) {
		const mark = paint(MARK[check.state], STYLE[check.state], color);
		lines.push(`${mark} ${check.title}${check.state === "ok" && !verbose ? "" : `: ${check.detail}`}`);
		if (check.fix && check.state !== "ok") lines.push(`    fix: ${check.fix}`);
	}
	lines.push("", `${data.summary.ok} ok, ${data.summary.warn} warn, ${data.summary.fail} fail`);
	return lines.join("\n");
}
