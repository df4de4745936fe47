import { done } from "../../proof/done.ts";
import { renderDone } from "./render.ts";

export const verb = { run: done, render: renderDone };
