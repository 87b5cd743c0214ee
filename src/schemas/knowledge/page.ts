import { z } from "zod";
import { markdownText, plainText, Timestamp, titleText, Uuid } from "../common";
import { MAX_PAGE_MARKDOWN_CHARS } from "../limits";

export const MAX_PATCH_OPERATIONS = 50;

/**
 * A markdown link to a page as services/knowledge/page-links.ts reads links, `[title](page:<id>)`: a link's text
 * cannot hold brackets there, so they are dropped from the title.
 */
export function pageLinkMarkdown(page: { id: string; title: string }): string {
  return `[${page.title.replace(/[[\]]/g, "").trim() || "page"}](page:${page.id})`;
}

const RefSchema = z.object({ id: Uuid, title: z.string() });

export const Page = z.object({
  id: Uuid,
  knowledgebaseId: Uuid,
  title: z.string(),
  templateKey: z.string(),
  parentPageId: Uuid.nullable(),
  isFolder: z.boolean(),
  hook: z.string(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  markdown: z.string(),
  attachedFiles: z.array(z.string()).meta({ description: "Names of the sources this page links to" }),
  relatedPages: z.array(RefSchema).meta({ description: "Pages this page links to" }),
  referencedBy: z.array(RefSchema).meta({ description: "Pages that link to this page" }),
});
export type Page = z.infer<typeof Page>;

export const PageLinks = z.object({
  pages: z.array(RefSchema),
  sources: z.array(z.object({ id: Uuid, name: z.string() })),
  unresolved: z.array(z.object({ kind: z.string(), id: z.string() })),
});
export type PageLinks = z.infer<typeof PageLinks>;

export const PageWriteResult = z.object({
  status: z.enum(["applied", "pending_review"]),
  page: z.object({ id: Uuid, knowledgebaseId: Uuid, title: z.string(), updatedAt: Timestamp }),
  revisionId: Uuid,
  reviewPath: z
    .string()
    .nullable()
    .meta({ description: "`/reviews/<reviewId>` when the write waits for review, else null" }),
  links: PageLinks,
});
export type PageWriteResult = z.infer<typeof PageWriteResult>;

export const CreatePageInput = z.strictObject({
  knowledgebaseId: Uuid,
  title: titleText,
  markdown: markdownText.optional(),
  parentPageId: Uuid.nullable().optional(),
  templateKey: plainText(100).optional(),
  isFolder: z.boolean().optional(),
  hook: plainText(1000).optional(),
});
export type CreatePageInput = z.infer<typeof CreatePageInput>;

const text = plainText(MAX_PAGE_MARKDOWN_CHARS);
const anchor = plainText(100_000).min(1);
export const PatchOperation = z.discriminatedUnion("op", [
  z.strictObject({ op: z.literal("replace"), oldString: anchor, newString: text }),
  z.strictObject({ op: z.literal("insert_before"), anchor, text }),
  z.strictObject({ op: z.literal("insert_after"), anchor, text }),
  z.strictObject({ op: z.literal("prepend"), text }),
  z.strictObject({ op: z.literal("append"), text }),
  z.strictObject({ op: z.literal("replace_range"), from: anchor, to: anchor, text }),
]);
export type PatchOperation = z.infer<typeof PatchOperation>;

export const PatchPageInput = z.strictObject({
  knowledgebaseId: Uuid,
  pageId: Uuid,
  patch: z.array(PatchOperation).max(MAX_PATCH_OPERATIONS, `At most ${MAX_PATCH_OPERATIONS} operations per request`),
  title: titleText.optional(),
});
export type PatchPageInput = z.infer<typeof PatchPageInput>;

export const PageIdInput = z.strictObject({ knowledgebaseId: Uuid, pageId: Uuid });
export type PageIdInput = z.infer<typeof PageIdInput>;

/** The console's page editor: the page's title and whole markdown, saved as typed. */
export const SavePageInput = PageIdInput.extend({ title: titleText.optional(), markdown: markdownText });

export const MovePageInput = z.strictObject({ knowledgebaseId: Uuid, pageId: Uuid, parentPageId: Uuid.nullable() });
export type MovePageInput = z.infer<typeof MovePageInput>;
export const MovePageOutput = z.object({
  page: z.object({
    id: Uuid,
    knowledgebaseId: Uuid,
    title: z.string(),
    parentPageId: Uuid.nullable(),
    updatedAt: Timestamp,
  }),
});

export const PageRevision = z.object({
  id: Uuid,
  title: z.string(),
  markdown: z.string(),
  authorEmail: z.string().nullable(),
  via: z.string(),
  createdAt: Timestamp,
});
export const PageRevisionsOutput = z.object({ revisions: z.array(PageRevision) });
