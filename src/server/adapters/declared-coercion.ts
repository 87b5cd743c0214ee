// Keeps each input schema's coercion as the schema declares it. On every request trpc-to-openapi
// sets `coerce` on each number, boolean, bigint and date of the procedure's input, bodies
// included, by writing to the shared schema objects: a JSON body's "false" then reads as true
// and its null as 0, and every other door using the same schemas (the console's tRPC) coerces
// too from then on. Query strings need no such help here: each query number is an explicit
// `z.coerce` in src/schemas, and no query takes a boolean. tests/api/rest-bridge.test.ts pins it.
const COERCIBLE = new Set(["number", "boolean", "bigint", "date"]);

interface SchemaLike {
  _zod?: { def: Record<string, unknown> & { type?: string } };
}

/** Every schema reachable from `schema` (wrappers, object shapes, array items, unions, pipes), once each. */
function* reachable(schema: unknown, seen = new Set<unknown>()): Generator<SchemaLike> {
  const def = (schema as SchemaLike | undefined)?._zod?.def;
  if (!def || seen.has(schema)) return;
  seen.add(schema);
  yield schema as SchemaLike;
  const children: unknown[] = [def.innerType, def.element, def.in, def.out, def.left, def.right, def.valueType];
  if (def.shape && typeof def.shape === "object") children.push(...Object.values(def.shape));
  if (Array.isArray(def.options)) children.push(...def.options);
  if (Array.isArray(def.items)) children.push(...def.items);
  if (def.type === "lazy" && typeof def.getter === "function") children.push((def.getter as () => unknown)());
  for (const child of children) yield* reachable(child, seen);
}

/** Fixes `coerce` at its declared value on every coercible schema in the procedure's input. */
export function keepDeclaredCoercion(procedure: { _def: object }): void {
  const inputs = (procedure._def as { inputs?: unknown[] }).inputs ?? [];
  for (const input of inputs) {
    for (const schema of reachable(input)) {
      const def = schema._zod!.def;
      if (!COERCIBLE.has(def.type ?? "")) continue;
      const descriptor = Object.getOwnPropertyDescriptor(def, "coerce");
      if (descriptor && !descriptor.configurable) continue;
      const declared = def.coerce === true;
      // A setter that ignores the write: the library assigns in strict mode, where a missing one throws.
      Object.defineProperty(def, "coerce", { get: () => declared, set: () => {}, enumerable: true });
    }
  }
}
