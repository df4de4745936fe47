/**
 * The server's `instructions`: loaded by capable clients on connect. The
 * first paragraph stands alone (clients may cut after 512 characters).
 */
export const INSTRUCTIONS = `discern runs this repository's engineering practice. Call discern_status first: it says where you are, what is configured, whether a Proof covers the current commit, and the one next action. "Done" means the project's own declared checks passed on the committed tree: only discern_done says so, with a Proof line to relay verbatim. Never land work on the trunk without the owner's consent.

How to work:
- Every project tool takes an optional absolute \`path\` naming the checkout to act on; relative paths are refused. Without it, tools act on the server's working root.
- Each task gets its own worktree: from the main checkout call discern_start (a title, a brief); the working root moves there (\`data.path\`).
- Iterate with discern_prepare (formatters, then lint and typecheck) and discern_test (the tests). Both run on a dirty tree. discern_update merges the trunk in when it moved (never a rebase).
- Commit, then call discern_done: the whole gate on the exact committed tree. A red result lists diagnostics, each with the command to reproduce it; fix, commit, call it again.
- Landing: relay the Proof line and ask the owner. Call discern_accept with \`confirmed: true\` only after the owner approved this landing in the conversation; without it, it refuses with awaiting_consent unless the trunk pre-authorizes the change.
- discern_impact says which configured scopes your change touches; discern_map is the project's own docs: read a region's page before changing it.
- discern_doctor explains a broken setup, with a fix for each failing check; discern_docs is discern's manual (\`target\` such as "loop" or "gate", or \`search\`).
- Results are envelopes: \`ok\`, \`message\`, \`hints\` (follow them), \`error\` (a stable code) on failure.
- Send a progressToken on long calls for progress; cancelling a call stops every job it started.
- Resources carry the same data as the tools: discern://status, discern://impact, discern://config, discern://map, discern://map/{target}, discern://docs and discern://docs/{target}.`;
