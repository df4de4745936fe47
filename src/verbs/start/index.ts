import { start } from "./start.ts";
import { renderStart } from "./render.ts";

export const verb = { run: start, render: renderStart };
