import { DEFAULT_COLUMNS } from "../text/layout.ts";

/**
 * How many columns human output may use. The terminal's own width when
 * stdout is one (never wider than that); `COLUMNS` may ask for less, and
 * sets the width when stdout is not a terminal (a pager, a test); else 80.
 */
export function outputWidth(terminalColumns: number | undefined, env: Readonly<Record<string, string | undefined>>): number {
	const requested = /^\d+$/.test(env.COLUMNS ?? "") ? Number(env.COLUMNS) : undefined;
	const candidates = [terminalColumns, requested].filter((value): value is number => value !== undefined && Number.isInteger(value) && value > 0);
	return candidates.length > 0 ? Math.min(...candidates) : DEFAULT_COLUMNS;
}
