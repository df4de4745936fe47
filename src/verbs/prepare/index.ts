import { prepare } from "./prepare.ts";
import { renderPrepare } from "./render.ts";

export { prepare };
export const verb = { run: prepare, render: renderPrepare };
