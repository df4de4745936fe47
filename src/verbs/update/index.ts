import { update } from "./update.ts";
import { renderUpdate } from "./render.ts";

export const verb = { run: update, render: renderUpdate };
