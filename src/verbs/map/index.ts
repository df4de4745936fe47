import { map } from "./map.ts";
import { renderMap } from "./render.ts";

export const verb = { run: map, render: renderMap };
