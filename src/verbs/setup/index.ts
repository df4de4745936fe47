import { renderSetup } from "./render.ts";
import { setup as runSetup, verifySetup } from "./setup.ts";

export const setup = { run: runSetup, render: renderSetup };
export const verify = { run: verifySetup, render: renderSetup };
