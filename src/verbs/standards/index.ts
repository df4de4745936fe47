import type { VerbContext } from "../../contract/context.ts";
import type { Result } from "../../contract/envelope.ts";
import { pinStandards } from "./pin.ts";
import { renderStandards } from "./render.ts";
import type { StandardsData } from "./schema.ts";
import { standards } from "./standards.ts";

export const verb = { run: standards, render: renderStandards };

export const pin = {
	run: (ctx: VerbContext, input: { names?: string[] | undefined; dry_run?: boolean | undefined }): Promise<Result<"standards pin", StandardsData>> =>
		pinStandards(ctx, "standards pin", input),
	render: renderStandards,
};
