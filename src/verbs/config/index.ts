import { config } from "./config.ts";
import { renderConfigResult } from "./render.ts";

export const verb = { run: config, render: renderConfigResult };
