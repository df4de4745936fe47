/**
 * The server's `instructions`: loaded by capable clients on connect. The
 * first paragraph stands alone (clients may cut after 512 characters).
 */
export const INSTRUCTIONS = `discern runs this repository's engineering practice. Call discern_status first: it says where you are (main checkout or task worktree), what is configured, and the one next action. "Done" means the project's own declared checks passed on the committed tree (the Gate); never claim done without it, and never land work on the trunk without the owner's consent.

How to work:
- Every project tool takes an optional absolute \`path\` naming the checkout to act on; relative paths are refused. Without it, tools act on the server's working root.
- discern_doctor explains a broken setup, with a fix for each failing check.
- discern_docs is discern's own manual (\`target\` a page such as "config" or "loop", or \`search\`). Read discern://docs/loop for the daily loop.
- Every result is an envelope: \`ok\`, \`message\`, \`hints\` (next steps), \`error\` (a stable code) on failure. Follow the hints.
- Resources: discern://status, discern://config, discern://docs and discern://docs/{target} carry the same data as the tools.

The loop, as the gate verbs ship: discern_start gives each task its own worktree (work there), discern_prepare runs the fast checks, discern_done is the bar and yields a Proof line to relay verbatim, discern_accept lands only with the owner's consent.`;
