import { docs } from "./docs.ts";
import { renderDocs } from "./render.ts";

export const verb = { run: docs, render: renderDocs };
