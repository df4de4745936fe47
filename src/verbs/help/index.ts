import { help } from "./help.ts";
import { renderHelp } from "./render.ts";

export const verb = { run: help, render: renderHelp };
