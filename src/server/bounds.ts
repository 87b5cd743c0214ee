// The server side of the text rule of src/schemas/text.ts: a value holding text PostgreSQL
// cannot store is `invalid_request` naming every such field. Doors call it on whatever they
// hand to a service (tRPC inputs, stream bodies, multipart fields, CLI flags).
import { unstorableTextProblems } from "@/schemas/text";
import { invalidRequest } from "./errors";

export function assertStorableText(value: unknown, pathPrefix = ""): void {
  const problems = unstorableTextProblems(value);
  if (problems.length > 0)
    throw invalidRequest(problems.map((problem) => ({ ...problem, path: `${pathPrefix}${problem.path}` })));
}

/**
 * A tRPC procedure's raw input held to the text rule, free-form objects included. An input that
 * cannot be read (an empty body) is left to the procedure: one without input never reads it,
 * one with input refuses it when it parses.
 */
export async function assertStorableRawInput(getRawInput: () => Promise<unknown>): Promise<void> {
  assertStorableText(await getRawInput().catch(() => undefined));
}
