import * as v from "valibot";
import { DryRunFlag, InnerLoopData } from "../../gate/schema.ts";

export const PrepareInput = v.strictObject({ dry_run: DryRunFlag });
export const PrepareData = InnerLoopData;
