import { render as renderFor, type Surface, type SurfaceWords, type VerbRef, wordsFor } from "../../src/contract/refer.ts";
import { LOOSE_VERBS } from "../../src/registry.ts";

/**
 * What the invocation pipeline adds to every core's context for a surface
 * (src/invoke.ts): the registry's verbs and the words that render references
 * to them. A test that builds a VerbContext by hand, or words a hint itself,
 * takes them from here, so it reads exactly what a real run would.
 */
export function surfaceWords(surface: Surface): SurfaceWords {
	return wordsFor(surface, LOOSE_VERBS);
}

/** `ctx.say` for `surface`. */
export function sayFor(surface: Surface) {
	return surfaceWords(surface).say;
}

/** `ctx.action` for `surface`. */
export function actionFor(surface: Surface) {
	return surfaceWords(surface).action;
}

/** One reference as `surface` names it, against the registry. */
export function render(reference: VerbRef, surface: Surface, code = true): string {
	return renderFor(reference, surface, LOOSE_VERBS, code);
}
