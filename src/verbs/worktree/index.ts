import { worktreeDrop } from "./drop.ts";
import { worktreeEnsure } from "./ensure.ts";
import { worktreeList } from "./list.ts";
import { worktreePrune } from "./prune.ts";
import { renderDrop, renderEnsure, renderList, renderPrune, renderTeardown } from "./render.ts";
import { worktreeTeardown } from "./teardown.ts";

export const list = { run: worktreeList, render: renderList };
export const teardown = { run: worktreeTeardown, render: renderTeardown };
export const drop = { run: worktreeDrop, render: renderDrop };
export const prune = { run: worktreePrune, render: renderPrune };
export const ensure = { run: worktreeEnsure, render: renderEnsure };
