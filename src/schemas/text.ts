// Text PostgreSQL cannot store: U+0000 (refused in text and in jsonb) and UTF-16 surrogates
// without their pair (they have no UTF-8 form). Found here, in any string or key of a value, so
// every door refuses them with the field named instead of failing at the database.

// eslint-disable-next-line no-control-regex -- U+0000 is the character this pattern exists to find
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export const UNSTORABLE_TEXT_MESSAGE = "Contains U+0000 or an unpaired UTF-16 surrogate, which cannot be stored";

export function isStorableText(text: string): boolean {
  return !UNSTORABLE.test(text);
}

/** The text without what PostgreSQL cannot store (extracted documents are cleaned, not refused). */
export function storableText(text: string): string {
  return text.replace(new RegExp(UNSTORABLE.source, "g"), "");
}

/** Text shown or stored as a message (a key in a problem path, a refusal's detail): its unstorable characters as `\uXXXX` escapes. */
export function printableText(text: string): string {
  return text.replace(
    new RegExp(UNSTORABLE.source, "g"),
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object") return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

export interface TextProblem {
  path: string;
  message: string;
}

/**
 * Every string and key holding unstorable text in `value`, as `{path, message}` with dotted
 * paths like validation problems (at most `limit`). Walks with an explicit stack, so any depth
 * is safe.
 */
export function unstorableTextProblems(value: unknown, limit = 20): TextProblem[] {
  const problems: TextProblem[] = [];
  const stack: { value: unknown; path: string[] }[] = [{ value, path: [] }];
  while (stack.length > 0 && problems.length < limit) {
    const { value: current, path } = stack.pop()!;
    if (typeof current === "string") {
      if (!isStorableText(current)) problems.push({ path: path.join("."), message: UNSTORABLE_TEXT_MESSAGE });
    } else if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index--)
        stack.push({ value: current[index], path: [...path, String(index)] });
    } else if (isPlainObject(current)) {
      const entries = Object.entries(current);
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, child] = entries[index]!;
        if (isStorableText(key)) stack.push({ value: child, path: [...path, key] });
        else
          problems.push({
            path: [...path, printableText(key)].join("."),
            message: `This key: ${UNSTORABLE_TEXT_MESSAGE}`,
          });
      }
    }
  }
  return problems;
}
