import { improvement } from "./improvement.ts";
import { renderImprovement } from "./render.ts";

export const verb = { run: improvement, render: renderImprovement };
