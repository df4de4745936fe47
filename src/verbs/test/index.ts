import { renderTest } from "./render.ts";
import { test } from "./test.ts";

export { test };
export const verb = { run: test, render: renderTest };
