import { renderUninstall } from "./render.ts";
import { uninstall } from "./uninstall.ts";

export const verb = { run: uninstall, render: renderUninstall };
