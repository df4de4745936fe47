import { impact } from "./impact.ts";
import { renderImpact } from "./render.ts";

export const verb = { run: impact, render: renderImpact };
