import { renderStatus } from "./render.ts";
import { status } from "./status.ts";

export const verb = { run: status, render: renderStatus };
