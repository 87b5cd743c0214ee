import { z } from "zod";
import {
  CreateKnowledgebaseInput,
  CreateKnowledgebaseOutput,
  Knowledgebase,
  KnowledgebaseIdInput,
  ListKnowledgebasesInput,
  ListKnowledgebasesOutput,
  SearchInput,
  SearchOutput,
  UpdateKnowledgebaseInput,
} from "@/schemas/knowledge/knowledgebase";
import {
  CreatePageInput,
  MovePageInput,
  MovePageOutput,
  Page,
  PageIdInput,
  PageRevisionsOutput,
  PageWriteResult,
  PatchPageInput,
  SavePageInput,
} from "@/schemas/knowledge/page";
import {
  CreateSourceInput,
  Source,
  SourceDetail,
  SourceIdInput,
  UpdateSourceInput,
  SourceOutput,
  SourceWriteResult,
  UploadSourceInput,
} from "@/schemas/knowledge/source";
import { channelOf } from "@/server/auth/actor";
import {
  createKnowledgebase,
  exportKnowledgebase,
  getKnowledgebaseJson,
  listKnowledgebases,
  updateKnowledgebase,
} from "@/server/services/knowledge/knowledgebases";
import { createPage, deletePage, getPage, listRevisions, movePage } from "@/server/services/knowledge/pages";
import { patchPage, savePage } from "@/server/services/knowledge/page-edits";
import { RetrievalTestInput, RetrievalTestOutput } from "@/schemas/knowledge/retrieval-test";
import { testRetrieval } from "@/server/services/knowledge/retrieval-test";
import { searchKnowledgebase } from "@/server/services/knowledge/search";
import {
  addSource,
  deleteSource,
  getSource,
  getSourceDetail,
  retrySource,
  updateSource,
} from "@/server/services/knowledge/sources";
import { ifMatchOf, tagged } from "../../entity-tags";
import { memberProcedure, scopedProcedure } from "../../init";
import { restRouter, memberCalls } from "../../service-procedures";

const PAGE_PRECONDITIONS = z.object({
  "If-Match": z.string().optional().meta({
    description:
      "The page's `ETag` last read (or `*`); the patch is refused with 412 `precondition_failed` when the page is at another version",
  }),
});

const ExportOutput = z.object({
  knowledgebase: Knowledgebase,
  pages: z.array(Page),
  sources: z.array(Source.extend({ text: z.string() })),
});

export const knowledgeRouter = restRouter("Knowledgebases", (rest) => ({
  list: rest.query(listKnowledgebases, {
    path: "/knowledgebases",
    summary: "List knowledgebases",
    description: "Ordered by creation time, then id.",
    input: ListKnowledgebasesInput,
    output: ListKnowledgebasesOutput,
  }),

  create: rest.mutation("POST", createKnowledgebase, {
    path: "/knowledgebases",
    summary: "Create a knowledgebase",
    description: "201. The plan may cap knowledgebases: `plan_limit` with `limit` and `used`.",
    errors: ["plan_limit"],
    successStatus: 201,
    input: CreateKnowledgebaseInput,
    output: CreateKnowledgebaseOutput,
  }),

  update: rest.mutation("PATCH", updateKnowledgebase, {
    path: "/knowledgebases/{knowledgebaseId}",
    summary: "Update a knowledgebase",
    description:
      "Name, description or `language` (the text-search configuration). A new language re-indexes the knowledgebase's pages and documents before the response.",
    errors: ["not_found"],
    input: UpdateKnowledgebaseInput,
    output: CreateKnowledgebaseOutput,
  }),

  get: rest.queryJson(getKnowledgebaseJson, {
    path: "/knowledgebases/{knowledgebaseId}",
    summary: "A knowledgebase with its sources and page index",
    description:
      "The Knowledgebase object at the top level. `pages[].path` lists titles from the top level down to the page.",
    errors: ["not_found"],
    input: KnowledgebaseIdInput,
    output: Knowledgebase,
  }),

  export: rest.query(exportKnowledgebase, {
    path: "/knowledgebases/{knowledgebaseId}/export",
    summary: "Export a knowledgebase",
    description:
      "Everything in one document: the knowledgebase, every page in full and every source with its extracted text. Capped at 50 MB (`export_too_large`); limited to 3 exports per minute per key (`rate_limited` with `Retry-After`), besides the general limit.",
    errors: ["not_found", "export_too_large"],
    input: KnowledgebaseIdInput,
    output: ExportOutput,
  }),

  search: rest.mutation("POST", searchKnowledgebase, {
    path: "/knowledgebases/{knowledgebaseId}/search",
    summary: "Search pages and source documents",
    description:
      "Full-text search (web-search syntax: quotes, OR, -word) ranked by relevance, with snippets where matches are marked `**like this**`. `kinds` defaults to both. Searching `sources` costs 1 credit (`insufficient_credits` when the balance cannot cover it; nothing charged on `search_unavailable`); pages are free.",
    errors: ["not_found", "insufficient_credits", "search_unavailable"],
    input: SearchInput,
    output: SearchOutput,
  }),

  addSource: rest
    .route("POST", addSource.requirement, {
      path: "/knowledgebases/{knowledgebaseId}/sources",
      summary: "Add a source document",
      description:
        "202. JSON: exactly one of `contentMarkdown`, `contentText` (each up to 1 MB) or `url` (a public http/https page fetched server-side; private, loopback, link-local and metadata addresses are refused, also after redirects; with `refresh` daily or weekly it is fetched again conditionally, and with `crawl` the pages it links to within its host, up to `maxPages` (≤ 500) and `maxDepth`, honouring robots.txt, become sources of their own; a sitemap URL lists the pages). Or `multipart/form-data` with a `file` part (PDF, DOCX, PPTX, XLSX, HTML, CSV, TXT or MD) and an optional `name`, up to 4.5 MB per request (413 `invalid_request` above). Answers `processing` (indexing runs in the background; poll the source until `ready` or `failed`) or `pending_review` when the organization reviews agent writes. `Idempotency-Key` (1..255 printable ASCII): the same key with the same body replays the first response; another body, or while the first still runs, gives `conflict`. Keys are kept 24 hours per organization.",
      errors: ["not_found", "plan_limit", "conflict"],
      successStatus: 202,
      multipart: true,
      input: CreateSourceInput,
      output: SourceWriteResult,
    })
    .mutation(async ({ ctx, input }) => {
      const { knowledgebaseId, ...content } = input;
      // The REST door applies Idempotency-Key to every JSON POST (adapters/rest.ts).
      const result = await addSource(ctx.db, ctx.actor, { knowledgebaseId, ...content }, { via: channelOf(ctx.actor) });
      ctx.response.status = result.status;
      return result.body;
    }),

  getSource: rest.query(getSource, {
    path: "/knowledgebases/{knowledgebaseId}/sources/{sourceId}",
    summary: "A source document",
    description: "Poll until `status` is `ready` (or `failed`, with `errorMessage`).",
    errors: ["not_found"],
    input: SourceIdInput,
    output: SourceOutput,
  }),

  /** The console's source view: extracted text, chunks with their headings, indexing. */
  sourceDetail: scopedProcedure(getSourceDetail.requirement)
    .input(SourceIdInput)
    .output(SourceDetail)
    .query(({ ctx, input }) => getSourceDetail(ctx.db, ctx.actor, input)),

  deleteSource: rest.remove(deleteSource, {
    path: "/knowledgebases/{knowledgebaseId}/sources/{sourceId}",
    summary: "Delete a source document",
    description: "204. Personal keys need the admin role.",
    errors: ["not_found"],
    input: SourceIdInput,
  }),

  updateSource: rest.mutation("PATCH", updateSource, {
    path: "/knowledgebases/{knowledgebaseId}/sources/{sourceId}",
    summary: "Change how often a URL source is refreshed",
    description:
      "`refresh`: `daily` or `weekly` (the next fetch is due that long from now) or null (fetched no more; its text stays). A source without a URL → `invalid_request`.",
    errors: ["not_found"],
    input: UpdateSourceInput,
    output: SourceOutput,
  }),

  retrySource: rest.mutation("POST", retrySource, {
    path: "/knowledgebases/{knowledgebaseId}/sources/{sourceId}/retry",
    summary: "Index a failed source again",
    description:
      "Only a `failed` source can be retried (else `invalid_request`); it goes back to `processing` and is indexed from the start.",
    errors: ["not_found"],
    input: SourceIdInput,
    output: SourceOutput,
  }),

  createPage: rest
    .route("POST", createPage.requirement, {
      path: "/knowledgebases/{knowledgebaseId}/pages",
      summary: "Create a page",
      description:
        "201 with status `applied`, or 202 with `pending_review` when the organization reviews agent writes (the page then exists, empty, until a person approves). A personal key is recorded as the author; an organization key writes unattributed. `links` lists the `[label](page:<id>)` and `[label](source:<id>)` links found, with `unresolved` ones.",
      errors: ["not_found"],
      successStatus: 201,
      alsoSucceeds: {
        status: 202,
        description:
          "`pending_review`: the organization reviews agent writes; the page exists, empty, until a person approves",
      },
      input: CreatePageInput,
      output: PageWriteResult,
    })
    .mutation(async ({ ctx, input }) => {
      const result = await createPage(ctx.db, ctx.actor, input);
      ctx.response.status = result.status === "applied" ? 201 : 202;
      return result;
    }),

  getPage: rest
    .route("GET", getPage.requirement, {
      path: "/knowledgebases/{knowledgebaseId}/pages/{pageId}",
      summary: "A page in full",
      description:
        "The Page object at the top level. Its `ETag` names this version of the page for `If-Match` on a patch.",
      errors: ["not_found"],
      etag: true,
      input: PageIdInput,
      output: Page,
    })
    .query(async ({ ctx, input }) => {
      return tagged(ctx.response, await getPage(ctx.db, ctx.actor, input));
    }),

  patchPage: rest
    .route("PATCH", patchPage.requirement, {
      path: "/knowledgebases/{knowledgebaseId}/pages/{pageId}",
      summary: "Edit a page with patch operations",
      description:
        "`patch`: up to 50 operations applied in order, each to the previous one's result: `replace` {oldString, newString}, `insert_before`/`insert_after` {anchor, text}, `prepend`/`append` {text}, `replace_range` {from, to, text} (from the start of `from` through the end of `to`, `to` searched after `from`). Every anchor must appear exactly once in the current markdown, else `invalid_request` names the operation index and anchor and nothing changes. `text` is inserted exactly as given. Optional `title`. `If-Match` with a tag other than the page's current `ETag` (from GET) is refused with 412 `precondition_failed` and nothing changes. 202 `pending_review` when the organization reviews agent writes.",
      requestHeaders: PAGE_PRECONDITIONS,
      errors: ["not_found", "precondition_failed"],
      alsoSucceeds: {
        status: 202,
        description:
          "`pending_review`: the organization reviews agent writes; the live page is untouched until a person approves",
      },
      input: PatchPageInput,
      output: PageWriteResult,
    })
    .mutation(async ({ ctx, input }) => {
      const result = await patchPage(ctx.db, ctx.actor, input, { ifMatch: ifMatchOf(ctx.requestHeaders) });
      ctx.response.status = result.status === "applied" ? 200 : 202;
      return result;
    }),

  movePage: rest.mutation("POST", movePage, {
    path: "/knowledgebases/{knowledgebaseId}/pages/{pageId}/move",
    summary: "Move a page or a folder with its subtree",
    description:
      "`parentPageId` null moves to the top level. Structural only; never waits for review. Moving into its own subtree gives `invalid_request`; a parent outside the knowledgebase gives `not_found`.",
    errors: ["not_found"],
    input: MovePageInput,
    output: MovePageOutput,
  }),

  deletePage: rest.remove(deletePage, {
    path: "/knowledgebases/{knowledgebaseId}/pages/{pageId}",
    summary: "Delete a page",
    description: "204. A folder that still holds pages gives `invalid_request`. Personal keys need the admin role.",
    errors: ["not_found"],
    input: PageIdInput,
  }),

  // Console only.
  uploadSource: memberProcedure(addSource.requirement)
    .input(UploadSourceInput)
    .output(SourceWriteResult)
    .mutation(async ({ ctx, input }) => {
      const result = await addSource(
        ctx.db,
        ctx.actor,
        {
          knowledgebaseId: input.knowledgebaseId,
          file: {
            name: input.fileName,
            contentType: input.contentType,
            bytes: Buffer.from(input.contentBase64, "base64"),
          },
        },
        { via: "console" },
      );
      return result.body;
    }),

  savePage: memberCalls.mutationWith(savePage, SavePageInput, PageWriteResult),

  revisions: memberCalls.queryWith(listRevisions, PageIdInput, PageRevisionsOutput),

  testRetrieval: memberCalls.queryWith(testRetrieval, RetrievalTestInput, RetrievalTestOutput),
}));
