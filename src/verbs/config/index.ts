import { getConfig, setConfig, validateConfig } from "./config.ts";
import { renderConfigResult } from "./render.ts";

export const validate = { run: validateConfig, render: renderConfigResult };
export const get = { run: getConfig, render: renderConfigResult };
export const set = { run: setConfig, render: renderConfigResult };
