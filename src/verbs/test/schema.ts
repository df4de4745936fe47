import * as v from "valibot";
import { DryRunFlag, InnerLoopData } from "../../gate/schema.ts";

export const TestInput = v.strictObject({ dry_run: DryRunFlag });
export const TestData = InnerLoopData;
