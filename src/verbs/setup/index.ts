import { renderSetup } from "./render.ts";
import { setup } from "./setup.ts";

export const verb = { run: setup, render: renderSetup };
