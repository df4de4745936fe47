import { renderUpdate } from "./render.ts";
import { update } from "./update.ts";

export const verb = { run: update, render: renderUpdate };
