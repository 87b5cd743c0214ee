import { z } from "zod";
import { httpUrl, Timestamp, titleText, Uuid } from "../common";
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from "../text";

export const SOURCE_STATUSES = ["processing", "ready", "pending_review", "failed"] as const;

export const Source = z.object({
  id: Uuid,
  name: z.string(),
  type: z.string().meta({
    description: "markdown, text, pdf, csv, html, docx, pptx or xlsx; `url` until a URL source has been fetched",
  }),
  status: z.enum(SOURCE_STATUSES),
  searchable: z.boolean(),
  disabled: z.boolean(),
  url: z.string(),
  updatedAt: Timestamp,
  createdAt: Timestamp,
  sizeBytes: z.number().int(),
  errorMessage: z.string(),
  createdVia: z.string().meta({
    description: "`upload` (a multipart upload), or the door it was added through: `api`, `console`, `mcp` or `cli`",
  }),
  refresh: z
    .enum(["daily", "weekly"])
    .nullable()
    .meta({ description: "How often a URL source is fetched again (conditionally); null: fetched once" }),
  checkedAt: Timestamp.nullable().meta({ description: "When the URL was last fetched, changed or not" }),
  refreshError: z
    .string()
    .meta({ description: "Why the last refresh failed (the last good text is kept); empty after a good one" }),
  crawlId: Uuid.nullable().meta({ description: "The crawl that found this page, if any" }),
});
export type Source = z.infer<typeof Source>;

export const REFRESH_VALUES = ["daily", "weekly"] as const;
const Refresh = z.enum(REFRESH_VALUES).meta({
  description:
    "Fetch the URL again daily or weekly, with If-None-Match/If-Modified-Since; an unchanged page is not re-indexed, a failed refresh keeps the last good text",
});

/** Crawl bounds: pages in all, and links followed from the start URL. */
export const CRAWL_BOUNDS = { maxPages: 500, maxDepth: 5, defaultDepth: 2 } as const;
const Crawl = z
  .strictObject({
    maxPages: z.number().int().min(1).max(CRAWL_BOUNDS.maxPages),
    sameHost: z.literal(true).meta({ description: "Only links within the start URL's host are followed" }),
    maxDepth: z
      .number()
      .int()
      .min(0)
      .max(CRAWL_BOUNDS.maxDepth)
      .optional()
      .meta({ description: `Links followed from the start URL (default ${CRAWL_BOUNDS.defaultDepth})` }),
  })
  .meta({
    description:
      "Crawl from `url` (a page or a sitemap) within its host, honouring robots.txt: each page found becomes a source of its own, grouped under the crawl",
  });

/** Inline content: up to 1 MB. */
export const MAX_INLINE_BYTES = 1024 * 1024;
/** Multipart request size: 4.5 MB. */
export const MAX_UPLOAD_BYTES = 4.5 * 1024 * 1024;

/** The console's upload: the file as base64, bounded by the same byte limit as a multipart upload. */
export const UploadSourceInput = z.strictObject({
  knowledgebaseId: Uuid,
  fileName: titleText,
  contentType: z.string().max(200),
  contentBase64: z.string().max(Math.ceil((MAX_UPLOAD_BYTES * 4) / 3) + 4),
});

const inline = z
  .string()
  .min(1)
  .refine(
    // TextEncoder, not Buffer: the console checks its form with this schema in the browser.
    (value) => new TextEncoder().encode(value).length <= MAX_INLINE_BYTES,
    "Inline content is limited to 1 MB; upload a file or give a url",
  )
  .refine(isStorableText, UNSTORABLE_TEXT_MESSAGE);

/** A source's name (the upload's `name` field too). */
export const SourceName = titleText;

const SourceUrl = httpUrl("Give a public http or https URL", 2048);

/**
 * A source added as JSON: an optional name and exactly one of inline markdown, inline text or a
 * URL. The OpenAPI document shows it as a oneOf of the three; the input below is checked with it.
 */
export const SourceContent = z
  .xor([
    z.strictObject({ name: SourceName.optional(), contentMarkdown: inline }),
    z.strictObject({ name: SourceName.optional(), contentText: inline }),
    z.strictObject({
      name: SourceName.optional(),
      url: SourceUrl,
      refresh: Refresh.optional(),
      crawl: Crawl.optional(),
    }),
  ])
  .meta({ id: "SourceContent", description: "Exactly one of `contentMarkdown`, `contentText` or `url`" });

const CONTENT_FIELDS = ["contentMarkdown", "contentText", "url"] as const;

/** Each field checked on its own (so problems name it), then the whole against SourceContent. */
export const CreateSourceInput = z
  .strictObject({
    knowledgebaseId: Uuid,
    name: SourceName.optional(),
    contentMarkdown: inline.optional(),
    contentText: inline.optional(),
    url: SourceUrl.optional(),
    refresh: Refresh.optional(),
    crawl: Crawl.optional(),
  })
  .superRefine(({ knowledgebaseId: _, ...content }, ctx) => {
    if (SourceContent.safeParse(content).success) return;
    if (content.url === undefined && (content.refresh !== undefined || content.crawl !== undefined)) {
      ctx.addIssue({
        code: "custom",
        path: [content.refresh !== undefined ? "refresh" : "crawl"],
        message: "refresh and crawl apply to a url source only",
      });
      return;
    }
    const given = CONTENT_FIELDS.filter((field) => content[field] !== undefined);
    ctx.addIssue({
      code: "custom",
      path: [given.length ? given.join(",") : "contentMarkdown"],
      message: "Give exactly one of contentMarkdown, contentText or url",
    });
  });
export type CreateSourceInput = z.infer<typeof CreateSourceInput>;

export const SourceWriteResult = z.object({
  status: z.enum(["processing", "pending_review"]),
  source: Source,
  reviewPath: z
    .string()
    .nullable()
    .meta({ description: "`/reviews/<reviewId>` when the source waits for review, else null" }),
  crawl: z
    .object({ id: Uuid, maxPages: z.number().int(), maxDepth: z.number().int() })
    .nullable()
    .meta({ description: "The crawl started from this source's URL, if `crawl` was given; else null" }),
});
export type SourceWriteResult = z.infer<typeof SourceWriteResult>;

export const SourceIdInput = z.strictObject({ knowledgebaseId: Uuid, sourceId: Uuid });
export const SourceOutput = z.object({ source: Source });

/** PATCH a source: how often its URL is fetched again (null: no more), the one thing that changes after it is added. */
export const UpdateSourceInput = SourceIdInput.extend({
  refresh: Refresh.nullable().meta({
    description: "`daily` or `weekly` (due that long from now), or null to stop refreshing; URL sources only",
  }),
});

/** How much of a source the console's detail view shows: the start of its text and of its chunks. */
export const SOURCE_PREVIEW = { textChars: 20_000, chunks: 100, chunkChars: 1_000, refreshes: 20 } as const;

/** The console's view of one source: what was extracted, how it was chunked, and its indexing. */
export const SourceDetail = z.object({
  source: Source,
  text: z.string().meta({ description: "The start of the extracted text" }),
  textChars: z.number().int(),
  chunkCount: z.number().int(),
  chunks: z.array(
    z.object({ position: z.number().int(), heading: z.string(), text: z.string(), textChars: z.number().int() }),
  ),
  job: z
    .object({
      status: z.string(),
      attempts: z.number().int(),
      lastError: z.string().nullable(),
      queuedAt: Timestamp,
      startedAt: Timestamp.nullable(),
      runAfter: Timestamp,
      chunksWritten: z.number().int().meta({ description: "Chunks written so far of a large document" }),
      chunksTotal: z.number().int().meta({ description: "Chunks to write; 0 until the document is extracted" }),
    })
    .nullable()
    .meta({ description: "The indexing job while the source is queued or being indexed" }),
  refreshes: z
    .array(
      z.object({
        at: Timestamp,
        outcome: z.enum(["changed", "unchanged", "failed"]),
        summary: z.string(),
      }),
    )
    .meta({
      description: "A refreshed URL source's last checks, newest first: what changed and when, or why it failed",
    }),
  refreshDueAt: Timestamp.nullable(),
});
export type SourceDetail = z.infer<typeof SourceDetail>;
