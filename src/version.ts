import pkg from "../package.json" with { type: "json" };

/** discern's version, baked into the binary at build time. */
export const VERSION: string = pkg.version;
