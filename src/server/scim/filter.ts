// SCIM filters (RFC 7644 §3.4.2.2): the grammar is scim2-parse-filter's parser, fed by our own
// tokenizer, which is linear (the library's tokenizer copies the rest of the text at every token
// and its quoted-string pattern backtracks exponentially on unterminated strings with newlines),
// bounds length and nesting, and reads a value left unquoted as a string, as some identity
// providers send it (`userName eq john@example.com`). Evaluation is ours too: attribute names,
// and values except `id` and `externalId`, compare case-insensitively.
import type { Filter } from "scim2-parse-filter";
import { parseFilter, Tokens, type Token } from "scim2-parse-filter/lib/src/parser.js";
import { ENTERPRISE_SCHEMA, GROUP_SCHEMA, scimError, startsWithIgnoringCase, USER_SCHEMA } from "./schema";

export type { Filter };

/** The longest filter (or PATCH path) accepted, in characters. */
export const MAX_FILTER_CHARS = 2_048;
/** Parentheses and brackets nested at most this deep. */
export const MAX_FILTER_NESTING = 16;

const COMPARISONS = new Set(["eq", "ne", "co", "sw", "ew", "gt", "lt", "ge", "le"]);

function isSpace(char: string): boolean {
  return char === " " || char === "\t" || char === "\n" || char === "\r";
}

function endsWord(char: string): boolean {
  return isSpace(char) || char === "(" || char === ")" || char === "[" || char === "]" || char === '"';
}

/** A literal JSON reads as a boolean, null or number; anything else in value position is a string. */
function literalValue(word: string): boolean {
  if (word === "true" || word === "false" || word === "null") return true;
  return word !== "" && Number.isFinite(Number(word)) && !Number.isNaN(Number.parseFloat(word));
}

export function tokenize(text: string): Token[] {
  if (text.length > MAX_FILTER_CHARS)
    throw scimError(400, "invalidFilter", `The filter is longer than ${MAX_FILTER_CHARS} characters.`);
  const tokens: Token[] = [];
  let depth = 0;
  let index = 0;
  while (index < text.length) {
    const char = text[index]!;
    if (isSpace(char)) {
      index++;
    } else if (char === '"') {
      let end = index + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      if (end >= text.length) throw scimError(400, "invalidFilter", "The filter has a string with no closing quote.");
      tokens.push({ type: "Quoted", literal: text.slice(index, end + 1) });
      index = end + 1;
    } else if (char === "(" || char === "[") {
      if (++depth > MAX_FILTER_NESTING)
        throw scimError(400, "invalidFilter", `The filter is nested more than ${MAX_FILTER_NESTING} levels deep.`);
      tokens.push({ type: "Bracket", literal: char });
      index++;
    } else if (char === ")" || char === "]") {
      depth--;
      const dotted = char === "]" && text[index + 1] === ".";
      tokens.push({ type: "Bracket", literal: dotted ? "]." : char });
      index += dotted ? 2 : 1;
    } else {
      let end = index;
      while (end < text.length && !endsWord(text[end]!)) end++;
      const word = text.slice(index, end);
      const previous = tokens[tokens.length - 1];
      const inValuePosition =
        previous?.type === "Word" &&
        COMPARISONS.has(previous.literal.toLowerCase()) &&
        tokens[tokens.length - 2]?.type === "Word";
      tokens.push(
        inValuePosition && !literalValue(word)
          ? { type: "Quoted", literal: JSON.stringify(word) }
          : { type: "Word", literal: word },
      );
      index = end;
    }
  }
  tokens.push({ type: "EOT", literal: "" });
  return tokens;
}

/** The filter's syntax tree; anything that does not parse is 400 `invalidFilter`. */
export function parseScimFilter(text: string): Filter {
  const tokens = new Tokens(tokenize(text));
  try {
    const filter = parseFilter(tokens);
    if (tokens.peek().type !== "EOT") throw new Error(`unexpected ${tokens.peek().literal}`);
    return filter;
  } catch (error) {
    throw scimError(
      400,
      "invalidFilter",
      `The filter cannot be parsed: ${error instanceof Error ? error.message : String(error)}.`,
    );
  }
}

/** An attribute path as keys: `name.familyName` → [name, familyName]; an extension's attributes live under its URN. */
export function pathKeys(attrPath: string): string[] {
  if (startsWithIgnoringCase(attrPath, `${ENTERPRISE_SCHEMA}:`))
    return [ENTERPRISE_SCHEMA, ...attrPath.slice(ENTERPRISE_SCHEMA.length + 1).split(".")];
  for (const core of [USER_SCHEMA, GROUP_SCHEMA]) {
    if (startsWithIgnoringCase(attrPath, `${core}:`)) return attrPath.slice(core.length + 1).split(".");
  }
  return attrPath.split(".");
}

/** Every value at `keys` under `value`, arrays flattened, keys matched case-insensitively. */
function valuesAt(value: unknown, keys: string[]): unknown[] {
  if (Array.isArray(value)) return value.flatMap((item) => valuesAt(item, keys));
  if (keys.length === 0) return value === undefined || value === null ? [] : [value];
  if (typeof value !== "object" || value === null) return [];
  const wanted = keys[0]!.toLowerCase();
  const key = Object.keys(value).find((name) => name.toLowerCase() === wanted);
  return key === undefined ? [] : valuesAt((value as Record<string, unknown>)[key], keys.slice(1));
}

const CASE_EXACT = new Set(["id", "externalid"]);
const DATE_ATTRIBUTES = new Set(["created", "lastmodified"]);

function compare(op: string, actual: unknown, expected: unknown, caseExact: boolean, isDate: boolean): boolean {
  if (typeof actual === "boolean") {
    const wanted = typeof expected === "string" ? expected.toLowerCase() === "true" : expected;
    return op === "eq" ? actual === wanted : op === "ne" ? actual !== wanted : false;
  }
  if (expected === null) return op === "ne";
  if (isDate && (op === "gt" || op === "ge" || op === "lt" || op === "le")) {
    const [a, b] = [Date.parse(String(actual)), Date.parse(String(expected))];
    if (Number.isNaN(a) || Number.isNaN(b)) return false;
    return op === "gt" ? a > b : op === "ge" ? a >= b : op === "lt" ? a < b : a <= b;
  }
  let [a, b] = [String(actual), String(expected)];
  if (!caseExact) [a, b] = [a.toLowerCase(), b.toLowerCase()];
  switch (op) {
    case "eq":
      return a === b;
    case "ne":
      return a !== b;
    case "co":
      return a.includes(b);
    case "sw":
      return a.startsWith(b);
    case "ew":
      return a.endsWith(b);
    case "gt":
      return a > b;
    case "ge":
      return a >= b;
    case "lt":
      return a < b;
    default:
      return a <= b;
  }
}

/** Whether `resource` (a SCIM resource or one value of a multi-valued attribute) passes `filter`. */
export function matchesFilter(resource: unknown, filter: Filter): boolean {
  switch (filter.op) {
    case "and":
      return filter.filters.every((inner) => matchesFilter(resource, inner));
    case "or":
      return filter.filters.some((inner) => matchesFilter(resource, inner));
    case "not":
      return !matchesFilter(resource, filter.filter);
    case "[]":
      return valuesAt(resource, pathKeys(filter.attrPath)).some((item) => matchesFilter(item, filter.valFilter));
    case "pr":
      return valuesAt(resource, pathKeys(filter.attrPath)).some(
        (item) => item !== "" && !(Array.isArray(item) && item.length === 0),
      );
    default: {
      const keys = pathKeys(filter.attrPath);
      const last = keys[keys.length - 1]!.toLowerCase();
      const values = valuesAt(resource, keys);
      // `ne` holds when no value equals (an absent attribute is not equal to anything).
      if (filter.op === "ne")
        return !values.some((value) => compare("eq", value, filter.compValue, CASE_EXACT.has(last), false));
      return values.some((value) =>
        compare(filter.op, value, filter.compValue, CASE_EXACT.has(last), DATE_ATTRIBUTES.has(last)),
      );
    }
  }
}

/** The equality a filter states about one attribute when it is only that (`userName eq "x"`), for an indexed lookup. */
export function equalityOn(filter: Filter, attribute: string): string | null {
  if (filter.op !== "eq" || typeof filter.compValue !== "string") return null;
  return filter.attrPath.toLowerCase() === attribute.toLowerCase() ? filter.compValue : null;
}
