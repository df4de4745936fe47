import type * as v from "valibot";

/** A Valibot schema seen through its structural fields (optional/nullable wrappers, pipes). */
export type SchemaLayer = v.GenericSchema & { type: string; wrapped?: SchemaLayer; pipe?: SchemaLayer[] };

/**
 * The base schema under optional/nullable wrappers and pipes (`v.pipe(v.string(), …)`),
 * calling `visit` on every layer on the way down. The one place that knows
 * how Valibot nests these, for code that introspects schemas (CLI flags,
 * config "did you mean").
 */
export function unwrapSchema(schema: v.GenericSchema, visit?: (layer: SchemaLayer) => void): SchemaLayer {
	let current = schema as SchemaLayer;
	for (;;) {
		visit?.(current);
		if (current.wrapped) current = current.wrapped;
		else if (current.pipe?.[0] && current.pipe[0] !== current) current = current.pipe[0];
		else return current;
	}
}
