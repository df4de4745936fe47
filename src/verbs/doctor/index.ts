import { doctor } from "./doctor.ts";
import { renderDoctor } from "./render.ts";

export const verb = { run: doctor, render: renderDoctor };
