import { accept } from "./accept.ts";
import { renderAccept } from "./render.ts";

export const verb = { run: accept, render: renderAccept };
