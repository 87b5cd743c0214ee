// Shapes shared by every resource. Schemas here import nothing from the server, so the
// console can use them for its forms.
import { z } from "zod";
import {
  MAX_DESCRIPTION_CHARS,
  MAX_EMAIL_CHARS,
  MAX_INPUT_TIME,
  MAX_MESSAGE_CHARS,
  MAX_NAME_CHARS,
  MAX_PAGE_MARKDOWN_CHARS,
  MAX_PAGE_SIZE,
  MAX_TITLE_CHARS,
  MAX_URL_CHARS,
  MIN_INPUT_TIME,
} from "./limits";
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from "./text";

// Named so the OpenAPI document refers to one definition instead of repeating the pattern.
export const Uuid = z.uuid().meta({ id: "Uuid" });

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Whether a value could be an id at all (PostgreSQL refuses to compare a uuid column with anything else). */
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}
export const Timestamp = z.iso.datetime({ offset: true }).meta({ id: "DateTime" });

const EARLIEST_INPUT_MS = Date.parse(MIN_INPUT_TIME);
const LATEST_INPUT_MS = Date.parse(MAX_INPUT_TIME);
const isoDateTime = z.iso.datetime({ offset: true });
/** The years 1970 to 9999 ahead of the ISO 8601 pattern, so that the OpenAPI document shows the range. */
const INPUT_YEARS = "(?=(?:19[7-9]\\d|[2-9]\\d{3})-)";
/**
 * A time a client sends: ISO 8601 with an offset, from 1970 to 9999 (PostgreSQL and JavaScript
 * both hold it; year 0000 holds in neither). Every time in an input is this one
 * (tests/security/bounds-times.test.ts walks them).
 */
export const TimestampInput = isoDateTime
  .refine((value) => {
    const ms = Date.parse(value);
    return ms >= EARLIEST_INPUT_MS && ms <= LATEST_INPUT_MS;
  }, `Must be a time from ${MIN_INPUT_TIME} to ${MAX_INPUT_TIME}`)
  .meta({
    id: "DateTimeInput",
    description: `ISO 8601 with an offset, from ${MIN_INPUT_TIME} to ${MAX_INPUT_TIME}`,
    pattern: `^${INPUT_YEARS}${isoDateTime._zod.def.pattern!.source.slice(1)}`,
  });

/** An integer a client sends, from `min` to `max` (shown as minimum and maximum in the OpenAPI document). */
export function boundedInt(min: number, max: number) {
  return z.number().int().min(min).max(max);
}

export const ErrorEnvelope = z
  .object({
    error: z
      .object({
        code: z.string().meta({ description: "Stable machine-readable code; branch on this." }),
        message: z.string().meta({ description: "Human-readable; wording may change." }),
      })
      .catchall(z.unknown()),
  })
  .meta({ id: "ErrorEnvelope" });

/**
 * The email rule: zod's practical one (dot-separated local parts of letters, digits and `_'+-`, a
 * dotted domain ending in two or more letters), stricter than JSON Schema's `email` format, so
 * the OpenAPI document states it as a `pattern` too. Anchored, with each repetition ended by a
 * character it cannot hold (`.` or `@`), its backtracking stays within one part: linear time.
 */
export const EMAIL_PATTERN = z.regexes.email;

/** An email address a client sends: trimmed, then the rule above, at most 320 characters. */
export function emailAddress() {
  return z.string().trim().max(MAX_EMAIL_CHARS).regex(EMAIL_PATTERN, "Invalid email address").meta({ format: "email" });
}

/**
 * An http(s) URL, as RFC 3986 writes one (ASCII, no spaces or `<>"{}|\^\``): the OpenAPI document
 * states it as `format: uri` with this `pattern`, and the server checks both the pattern and that
 * WHATWG's URL parser reads it. One character class repeated: linear time.
 */
// eslint-disable-next-line no-useless-escape -- `\[` keeps the pattern readable by other regex dialects (Python warns on a bare one)
export const HTTP_URL_PATTERN = /^[Hh][Tt][Tt][Pp][Ss]?:\/\/[A-Za-z0-9._~:/?#\[\]@!$&'()*+,;=%-]+$/;

/** A URL Atrium calls or shows (a webhook endpoint, a provider, an MCP server, a source): http or https. */
export function httpUrl(error = "An http or https URL", max: number = MAX_URL_CHARS) {
  return z
    .string()
    .max(max)
    .regex(HTTP_URL_PATTERN, error)
    .pipe(z.url({ protocol: /^https?$/, error }))
    .meta({ format: "uri" });
}

/** Query of every list endpoint: `limit` 1..200 (default 50) and the previous page's `nextCursor`. */
export const ListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(50),
  cursor: plainText(500).min(1).optional(),
});
export type ListQuery = z.infer<typeof ListQuery>;

/** `order` of a list that can be read newest first; its cursors are keyed on the same (createdAt, id). */
export const ListOrder = z.enum(["oldest", "newest"]).default("oldest").meta({
  description: "`newest` lists the latest first; a cursor continues in the order it was handed out with",
});
export type ListOrder = z.infer<typeof ListOrder>;

/** `q` of a list of named things: only those whose name contains it (case-insensitive). */
export const NameQuery = plainText(MAX_NAME_CHARS)
  .optional()
  .meta({ description: "Only those whose name contains this text, ignoring case (`%` and `_` match themselves)" });

export const NextCursor = z
  .string()
  .nullable()
  .meta({ description: "Pass as `cursor` for the next page; null on the last page." });

// Text a person or a client writes and Atrium stores: one helper per kind, each with its
// maximum from limits.ts (shown as maxLength in the OpenAPI document) and the storable-text rule.

/** Stored text of at most `max` characters, without U+0000 or an unpaired surrogate. */
export function plainText(max: number) {
  return z.string().max(max).refine(isStorableText, UNSTORABLE_TEXT_MESSAGE);
}

/** The name of a thing (knowledgebase, agent, flow, app, group, plan, portal, version): trimmed, 1..200. */
export const nameText = z.string().trim().min(1).max(MAX_NAME_CHARS).refine(isStorableText, UNSTORABLE_TEXT_MESSAGE);
/** A page or source title: trimmed, 1..300. */
export const titleText = z.string().trim().min(1).max(MAX_TITLE_CHARS).refine(isStorableText, UNSTORABLE_TEXT_MESSAGE);
/** A description: up to 5,000 characters. */
export const descriptionText = plainText(MAX_DESCRIPTION_CHARS);
/** A page's markdown: up to 1 MiB of characters. */
export const markdownText = plainText(MAX_PAGE_MARKDOWN_CHARS);
/** A conversation message, on every door: 1..32,000 characters, not only whitespace. */
export const messageText = plainText(MAX_MESSAGE_CHARS)
  .min(1, { error: "Required: a message that is not only whitespace", abort: true })
  // `\S` is what trim() keeps; the OpenAPI document shows it as `pattern` beside `minLength: 1`.
  .regex(/\S/, "Required: a message that is not only whitespace");

export const OkOutput = z.object({ ok: z.literal(true) });
