import * as v from "valibot";
import { DryRunFlag } from "../../contract/dry-run.ts";
import { InnerLoopData } from "../../jobs/schema.ts";

export const PrepareInput = v.strictObject({ dry_run: DryRunFlag });
export const PrepareData = InnerLoopData;
