// Models answer in text; these find the JSON value a reply holds, if any. The text is model or
// flow output, so it is read by hand in one pass: each character is looked at once, whatever
// brackets and quotes it is made of.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/** Candidates handed to JSON.parse at most: a failed parse costs an exception, and prose can hold many bracketed spans. */
const MAX_PARSE_ATTEMPTS = 32;

/** Whether the span opened at `start` can begin a JSON value at all: `{"` or `{}`, `[` and a value or `]`. */
function opensJson(text: string, start: number): boolean {
  let next = start + 1;
  while (next < text.length && " \t\r\n".includes(text[next]!)) next++;
  const char = text[next] ?? "";
  return text.charCodeAt(start) === OPEN_BRACE ? char === '"' || char === "}" : /^[\]"{[\d\-tfn]$/.test(char);
}

/** A JSON value nested deeper than the caller allows; `depth` is the allowed maximum. */
export class JsonTooDeep extends Error {
  override readonly name = "JsonTooDeep";
  constructor(readonly depth: number) {
    super(`The JSON is nested more than ${depth} levels deep.`);
  }
}

/**
 * The first balanced object or array in the text that parses as JSON; undefined when there is
 * none. Candidates are bracket-balanced spans (brackets inside strings do not count), tried in
 * order and never overlapping, so the whole search is linear in the text; at most
 * MAX_PARSE_ATTEMPTS of them are parsed. A candidate nested deeper than `maxDepth` throws
 * JsonTooDeep before it is parsed.
 */
export function jsonIn(text: string, maxDepth = Infinity): unknown {
  let index = 0;
  let attempts = 0;
  while (index < text.length && attempts < MAX_PARSE_ATTEMPTS) {
    const code = text.charCodeAt(index);
    if (code !== OPEN_BRACE && code !== OPEN_BRACKET) {
      index++;
      continue;
    }
    const start = index;
    let depth = 0;
    let deepest = 0;
    for (; index < text.length; index++) {
      const char = text.charCodeAt(index);
      if (char === QUOTE) {
        for (index++; index < text.length; index++) {
          const inner = text.charCodeAt(index);
          if (inner === BACKSLASH) index++;
          else if (inner === QUOTE) break;
        }
      } else if (char === OPEN_BRACE || char === OPEN_BRACKET) {
        deepest = Math.max(deepest, ++depth);
      } else if ((char === CLOSE_BRACE || char === CLOSE_BRACKET) && --depth === 0) {
        break;
      }
    }
    // Unbalanced to the end of the text: no later candidate can close either.
    if (depth !== 0) return undefined;
    index++;
    if (!opensJson(text, start)) continue;
    if (deepest > maxDepth) throw new JsonTooDeep(maxDepth);
    attempts++;
    try {
      return JSON.parse(text.slice(start, index)) as unknown;
    } catch {
      // Not JSON (prose in brackets, say): look further on.
    }
  }
  return undefined;
}

/** The JSON object the text holds, if it holds one; JsonTooDeep past `maxDepth`. */
export function jsonObjectIn(text: string, maxDepth = Infinity): Record<string, unknown> | undefined {
  const value = jsonIn(text, maxDepth);
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
