import { done } from "./done.ts";
import { renderDone } from "./render.ts";

export const verb = { run: done, render: renderDone };
