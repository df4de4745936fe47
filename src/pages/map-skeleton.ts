/** The map skeleton setup writes: the root README of the agent-maintained documentation tree. */
export const MAP_README_PATH = "docs/map/README.md";

export const MAP_README = `# Project map

The map is this repository's documentation for people and coding agents:
one folder per region of the code, each with a README that says what the
region is for, and pages that explain how things work and where they live.

Agents keep it current as they work: when a change alters how something
works, the page that describes it changes in the same commit. Folders whose
names start with \`_\` are internal notes.
`;
