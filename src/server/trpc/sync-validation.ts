// tRPC validates input and output with a schema's parseAsync when it has one, and zod compiles
// its fast object parser only for synchronous parses: for a 50-page knowledgebase the answer's
// check takes 48 µs asynchronously and 14 µs synchronously (BENCHMARKS.md). Atrium's schemas
// have no async refinements or transforms, so every procedure built from a root wrapped here
// validates synchronously. A schema that became async would fail its first parse in the tests.
import type { z } from "zod";

const synchronous = new WeakSet<object>();

/** The same schema, whose parseAsync now runs the synchronous parse (zod's own error, same params). */
function parsingSynchronously(schema: unknown): unknown {
  const zodSchema = schema as z.ZodType;
  if (typeof zodSchema?.parse !== "function" || synchronous.has(zodSchema)) return schema;
  zodSchema.parseAsync = async (data, params) => zodSchema.parse(data, params);
  synchronous.add(zodSchema);
  return schema;
}

/** True once a procedure built from a wrapped root has taken `schema` as its input or output. */
export function validatesSynchronously(schema: unknown): boolean {
  return typeof schema === "object" && schema !== null && synchronous.has(schema);
}

/** The builder methods that return another builder, to be wrapped in turn. */
const CHAINED = new Set<PropertyKey>([
  "input",
  "output",
  "meta",
  "use",
  "errors",
  "concat",
  "unstable_concat",
  "experimental_caller",
]);

/** A tRPC procedure builder whose `.input()` and `.output()` schemas, down the whole chain, parse synchronously. */
export function withSyncValidation<Builder extends object>(builder: Builder): Builder {
  return new Proxy(builder, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function" || !CHAINED.has(property)) return value;
      return (...args: unknown[]) => {
        if (property === "input" || property === "output") args[0] = parsingSynchronously(args[0]);
        return withSyncValidation((value as (...a: unknown[]) => object).apply(target, args));
      };
    },
  });
}
