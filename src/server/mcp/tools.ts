// The MCP tools. Each one is a REST endpoint's procedure called through the tRPC caller (same
// scope and role checks, same input schema, same service function, same output fields), so no
// rule lives here; only names, descriptions and the schemas listed to AI clients.
import { z } from "zod";
import { AppListRow } from "@/schemas/builder/builder";
import { ListQuery, NextCursor } from "@/schemas/common";
import {
  Knowledgebase,
  KnowledgebaseIdInput,
  ListKnowledgebasesInput,
  ListKnowledgebasesOutput,
  SearchInput,
  SearchOutput,
} from "@/schemas/knowledge/knowledgebase";
import {
  CreatePageInput,
  MovePageInput,
  MovePageOutput,
  Page,
  PageIdInput,
  PageWriteResult,
  PatchPageInput,
} from "@/schemas/knowledge/page";
import { CreateSourceInput, SourceWriteResult } from "@/schemas/knowledge/source";
import type { AtriumTool } from "./context";
import { converseTool } from "./converse-tool";

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

const REVIEW_NOTE =
  'When the organization reviews agent writes, the answer has `status: "pending_review"` and a `reviewPath` (`/reviews/<id>`): a person approves or rejects it in the console, and the live page is unchanged until then; otherwise `status: "applied"`.';

const args = (value: unknown) => (value ?? {}) as never;

export const TOOLS: readonly AtriumTool[] = [
  {
    name: "list_knowledgebases",
    title: "List knowledgebases",
    description:
      "Lists the organization's knowledgebases (id, name, description, counts of sources and pages), ordered by creation time; `q` keeps those whose name contains it (ignoring case). Pages of `limit` (1..200, default 50); pass the returned `nextCursor` as `cursor` for the next page (null on the last page). Needs `knowledge:read`.",
    input: ListKnowledgebasesInput,
    output: ListKnowledgebasesOutput,
    annotations: READ,
    run: (context, input) => context.caller.knowledge.list(args(input)),
  },
  {
    name: "get_knowledgebase",
    title: "Get a knowledgebase",
    description:
      "One knowledgebase with its source documents (name, type, status) and its page index: every page's id, title, parent, `isFolder`, `hook` (a one-line summary) and `path` (titles from the top level down). Use it to find a page's id before get_page, edit_page or move_page. Needs `knowledge:read`.",
    input: KnowledgebaseIdInput,
    output: Knowledgebase,
    annotations: READ,
    run: (context, input) => context.caller.knowledge.get(args(input)),
  },
  {
    name: "search_knowledgebase",
    title: "Search a knowledgebase",
    description:
      'Full-text search of a knowledgebase\'s pages and source documents, ranked by relevance: `{results: [{kind: "page"|"source", id, title, snippet, score}]}`, matches marked `**like this**` in snippets. `query` takes web-search syntax (quotes for phrases, OR, -word). `kinds` defaults to both; searching `sources` costs 1 credit (`insufficient_credits` when the balance cannot cover it), pages are free. `limit` 1..50, default 10. Needs `knowledge:read`.',
    input: SearchInput,
    output: SearchOutput,
    annotations: { ...READ, idempotentHint: false },
    run: (context, input) => context.caller.knowledge.search(args(input)),
  },
  {
    name: "get_page",
    title: "Read a page",
    description:
      "A page in full: title, `markdown`, parent, `hook`, the source names it links to (`attachedFiles`), the pages it links to (`relatedPages`) and the pages linking to it (`referencedBy`). Page links are written `[label](page:<uuid>)`, source links `[label](source:<uuid>)`. Needs `knowledge:read`.",
    input: PageIdInput,
    output: Page,
    annotations: READ,
    run: (context, input) => context.caller.knowledge.getPage(args(input)),
  },
  {
    name: "create_page",
    title: "Create a page",
    description: `Creates a page in a knowledgebase: \`title\` (required), \`markdown\`, \`parentPageId\` (a folder or page of the same knowledgebase; omit or null for the top level), \`isFolder\`, \`hook\` (a one-line summary shown in the page index), \`templateKey\`. Answers \`{status, page, revisionId, reviewPath, links}\`; \`links.unresolved\` lists page:/source: links to nothing. ${REVIEW_NOTE} Needs \`knowledge:write\` and the member role or above.`,
    input: CreatePageInput,
    output: PageWriteResult,
    annotations: WRITE,
    run: (context, input) => context.caller.knowledge.createPage(args(input)),
  },
  {
    name: "edit_page",
    title: "Edit a page with patch operations",
    description: `Edits a page's markdown with up to 50 operations applied in order, each to the previous one's result: \`{op:"replace", oldString, newString}\`, \`{op:"insert_before", anchor, text}\`, \`{op:"insert_after", anchor, text}\`, \`{op:"prepend", text}\`, \`{op:"append", text}\`, \`{op:"replace_range", from, to, text}\` (replaces from the start of \`from\` through the end of \`to\`; \`to\` is searched after \`from\`). Every anchor (oldString, anchor, from, to) must appear exactly once in the current markdown, else \`invalid_request\` names the operation and nothing changes: read the page first with get_page and quote enough surrounding text. \`text\` is inserted exactly as given (no newline added). Optional \`title\` renames the page. ${REVIEW_NOTE} Needs \`knowledge:write\` and the member role or above.`,
    input: PatchPageInput,
    output: PageWriteResult,
    annotations: WRITE,
    run: (context, input) => context.caller.knowledge.patchPage(args(input)),
  },
  {
    name: "move_page",
    title: "Move a page",
    description:
      "Moves a page, or a folder with everything under it, under another page or folder of the same knowledgebase (`parentPageId`), or to the top level (`parentPageId: null`). Structural only: applies at once, never waits for review. Moving a page into its own subtree gives `invalid_request`. Needs `knowledge:write` and the member role or above.",
    input: MovePageInput,
    output: MovePageOutput,
    annotations: { ...WRITE, idempotentHint: true },
    run: (context, input) => context.caller.knowledge.movePage(args(input)),
  },
  {
    name: "add_source",
    title: "Add a source document",
    description:
      "Adds a source document to a knowledgebase from exactly one of `contentText` (plain text), `contentMarkdown` (each up to 1 MB) or `url` (a public http/https page the server fetches), with an optional `name`. Answers `{status, source, reviewPath}`: `processing` while it is indexed in the background (then searchable with search_knowledgebase; get_knowledgebase shows its status: `ready` or `failed`), or `pending_review` when the organization reviews agent writes. The knowledgebase may be capped in sources (`plan_limit`). Needs `knowledge:write` and the member role or above.",
    input: CreateSourceInput,
    output: SourceWriteResult,
    annotations: { ...WRITE, openWorldHint: true },
    run: (context, input) => context.caller.knowledge.addSource(args(input)),
  },
  {
    name: "list_apps",
    title: "List published apps",
    description:
      "Lists the organization's published apps (id, name, description, inputs, inputSchema), ordered by creation time; talk to one with converse_with_app. Pages of `limit` (1..200, default 50); pass `nextCursor` as `cursor` for the next page. Needs `apps:read`.",
    input: ListQuery,
    output: z.object({ apps: z.array(AppListRow), nextCursor: NextCursor }),
    annotations: READ,
    run: (context, input) => context.caller.apps.list(args(input)),
  },
  converseTool,
];

/** A tool's result as JSON Schema (what the tool answers on success). */
export function toolOutputJsonSchema(tool: AtriumTool): { type: "object"; [key: string]: unknown } | undefined {
  if (!tool.output) return undefined;
  const { $schema: _ignored, ...schema } = z.toJSONSchema(tool.output, {
    io: "output",
    unrepresentable: "any",
  }) as Record<string, unknown>;
  return { ...schema, type: "object" };
}

/** A tool's arguments as JSON Schema (what a caller sends, so defaults make fields optional). */
export function toolInputJsonSchema(tool: AtriumTool): { type: "object"; [key: string]: unknown } {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(tool.input, {
    io: "input",
    unrepresentable: "any",
  }) as Record<string, unknown>;
  return { ...schema, type: "object" };
}
