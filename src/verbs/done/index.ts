import { renderGateRun } from "../../gate/render.ts";
import { done } from "./done.ts";

export const verb = { run: done, render: renderGateRun };
