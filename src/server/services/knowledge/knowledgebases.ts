// Knowledgebases: list, create (plan cap), detail with sources and the page index, export.
// An end user's own notebook is a knowledgebase with endUserId set; to the API it does not exist.
import type {
  Knowledgebase,
  KnowledgebaseLanguage,
  KnowledgebaseSearchMode,
  KnowledgebaseSummary,
} from "@/schemas/knowledge/knowledgebase";
import type { CreateKnowledgebaseInput, UpdateKnowledgebaseInput } from "@/schemas/knowledge/knowledgebase";
import type { ListQuery } from "@/schemas/common";
import type { Page } from "@/schemas/knowledge/page";
import type { Source } from "@/schemas/knowledge/source";
import type { Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import { hitRateLimit, rateLimitHeaders } from "@/server/auth/rate-limit";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { oldestFirst } from "../support/pagination";
import { changesBetween, recorded, recordEvent } from "../org/events";
import { findKnowledgebase, knowledgebaseNotFound, refuseOverPlanCap } from "../support/knowledge-access";
import { nameContains } from "../org/name-search";
import { getPage } from "./pages";
import { batchedReader } from "../support/batched-reads";
import { isoUtc } from "../support/sql-json";
import { pick } from "@/lib/pick";

/** A knowledgebase's own columns as Prisma reads them. */
interface KnowledgebaseColumns {
  id: string;
  name: string;
  description: string;
  language: string;
  searchMode: string;
  rerank: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** Its id and the settings a knowledgebase is made with, as the API names them. */
function settingsOf(row: KnowledgebaseColumns) {
  return {
    ...pick(row, ["id", "name", "description", "rerank"]),
    language: row.language as KnowledgebaseLanguage,
    searchMode: row.searchMode as KnowledgebaseSearchMode,
  };
}

async function summaries(db: Db, rows: KnowledgebaseColumns[]): Promise<KnowledgebaseSummary[]> {
  const ids = rows.map((row) => row.id);
  const [sourceCounts, pageCounts] = await Promise.all([
    db.source.groupBy({ by: ["knowledgebaseId"], where: { knowledgebaseId: { in: ids } }, _count: { _all: true } }),
    db.page.groupBy({ by: ["knowledgebaseId"], where: { knowledgebaseId: { in: ids } }, _count: { _all: true } }),
  ]);
  const count = (list: { knowledgebaseId: string; _count: { _all: number } }[], id: string) =>
    list.find((c) => c.knowledgebaseId === id)?._count._all ?? 0;
  return rows.map((row) => ({
    ...settingsOf(row),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    counts: { sources: count(sourceCounts, row.id), pages: count(pageCounts, row.id) },
  }));
}

export const listKnowledgebases = guarded(
  { scope: "knowledge:read" },
  async function listKnowledgebases(db: Db, actor: Actor, query: ListQuery & { q?: string }) {
    const { items, nextCursor } = await oldestFirst(query, (after, window) =>
      db.knowledgebase.findMany({
        where: {
          organizationId: actor.organizationId,
          endUserId: null,
          ...nameContains(query.q),
          ...after,
        },
        ...window,
      }),
    );
    return { knowledgebases: await summaries(db, items), nextCursor };
  },
);

export const createKnowledgebase = guarded(
  { scope: "knowledge:write" },
  async function createKnowledgebase(
    db: Db,
    actor: Actor,
    input: CreateKnowledgebaseInput,
  ): Promise<{
    knowledgebase: KnowledgebaseSummary;
  }> {
    const row = await db.$transaction(async (tx) => {
      await refuseOverPlanCap(tx, actor, "maxKnowledgebases", actor.organizationId, () =>
        tx.knowledgebase.count({ where: { organizationId: actor.organizationId, endUserId: null } }),
      );
      const created = await tx.knowledgebase.create({
        data: {
          organizationId: actor.organizationId,
          name: input.name,
          description: input.description ?? "",
          language: input.language,
          searchMode: input.searchMode,
          rerank: input.rerank,
        },
      });
      await recordEvent(tx, actor, {
        action: "knowledgebase.create",
        target: { type: "knowledgebase", id: created.id, label: created.name },
        changes: { name: [null, created.name] },
      });
      return created;
    });
    return { knowledgebase: (await summaries(db, [row]))[0]! };
  },
);

/**
 * Renames, describes or changes the language, search mode or reranking of a knowledgebase. A new language re-indexes its
 * pages and chunks in the same transaction (a trigger rewrites their text-search configuration,
 * which recomputes their tsvectors), so search never mixes two languages.
 */
export const updateKnowledgebase = guarded(
  { scope: "knowledge:write" },
  async function updateKnowledgebase(
    db: Db,
    actor: Actor,
    input: UpdateKnowledgebaseInput,
  ): Promise<{
    knowledgebase: KnowledgebaseSummary;
  }> {
    const before = await findKnowledgebase(db, actor, input.knowledgebaseId);
    const update = (tx: Pick<Db, "knowledgebase">) =>
      tx.knowledgebase.update({
        where: { id: input.knowledgebaseId, organizationId: actor.organizationId },
        data: {
          name: input.name,
          description: input.description,
          language: input.language,
          searchMode: input.searchMode,
          rerank: input.rerank,
        },
      });
    const row = await recorded(db, actor, update, (kb) => ({
      action: "knowledgebase.update",
      target: { type: "knowledgebase", id: kb.id, label: kb.name },
      changes: changesBetween(before, input, ["name", "description", "language", "searchMode", "rerank"]),
    }));
    return { knowledgebase: (await summaries(db, [row]))[0]! };
  },
);

/**
 * A page's path: the titles from the top level down to the page, following its parents within
 * the knowledgebase and stopping where a parent is missing or already on the path. A page at the
 * top level, the usual case, needs no walk.
 */
const PAGE_PATH = `case when p.parent_page_id is null then array[p.title] else (
          with recursive up(id, parent, title, depth, seen) as (
            select p.id, p.parent_page_id, p.title, 0, array[p.id]
            union all
            select q.id, q.parent_page_id, q.title, up.depth + 1, up.seen || q.id
            from up join pages q on q.id = up.parent
              and q.organization_id = k.organization_id and q.knowledgebase_id = k.id
            where q.id <> all(up.seen))
          select array_agg(up.title order by up.depth desc) from up) end`;

/**
 * The knowledgebases asked for together (batched-reads.ts), each as the API's JSON text of it,
 * in one statement on the pool (a hot read): the REST door sends that text as it is, and the
 * other doors parse it and check it against the output schema. Each is read in a lateral subquery
 * that `limit 1` keeps from being merged into a join, so that the plan probes the primary key once
 * for each id (merged, the planner guesses a thousand ids and may hash the whole table).
 *
 * The text is byte for byte what JSON.stringify writes of the checked object
 * (tests/knowledge/knowledgebase-json.test.ts): every object is row_to_json of a row whose
 * columns are the schema's fields in its order, and every list array_to_json of array_agg over
 * a subquery, both written without spaces (json_build_object and json_agg write some); PostgreSQL
 * escapes strings as JSON.stringify does. Each list's subquery's ORDER BY is its order: PostgreSQL's
 * documentation of aggregate functions names extra processing at the aggregate's level, such as
 * a join, as what could reorder it, so keep none there (tests/knowledge/knowledgebases.test.ts
 * checks the order).
 */
const KNOWLEDGEBASE_DETAILS = `
  select a.i, d.body from generate_subscripts($2::uuid[], 1) as a(i)
  cross join lateral (
  select row_to_json(kb)::text as body from (
  select k.id, k.name, k.description, k.language, k.search_mode as "searchMode", k.rerank, ${isoUtc("k.created_at")} as "createdAt", ${isoUtc("k.updated_at")} as "updatedAt",
    (select row_to_json(c) from (select sources.n as sources, pages.n as pages) c) as counts,
    sources.list as sources, crawls.list as crawls, pages.list as pages
  from knowledgebases k
  cross join lateral (
    select coalesce(array_to_json(array_agg(source)), '[]') as list, count(*)::int as n from (
      select s.id, s.name, s.type, s.status, s.searchable, s.disabled, coalesce(s.url, '') as url,
        ${isoUtc("s.updated_at")} as "updatedAt", ${isoUtc("s.created_at")} as "createdAt", s.size_bytes as "sizeBytes",
        coalesce(s.error_message, '') as "errorMessage", s.created_via as "createdVia",
        case when s.refresh in ('daily', 'weekly') then s.refresh end as refresh,
        ${isoUtc("s.checked_at")} as "checkedAt", coalesce(s.refresh_error, '') as "refreshError", s.crawl_id as "crawlId"
      from sources s where s.organization_id = k.organization_id and s.knowledgebase_id = k.id
      order by s.created_at, s.id) source) sources
  cross join lateral (
    select coalesce(array_to_json(array_agg(crawl)), '[]') as list from (
      select c.id, c.start_url as "startUrl", c.max_pages as "maxPages", c.max_depth as "maxDepth",
        case when c.refresh in ('daily', 'weekly') then c.refresh end as refresh, c.status,
        (select count(*)::int from sources s where s.crawl_id = c.id and s.organization_id = k.organization_id) as pages,
        ${isoUtc("c.created_at")} as "startedAt", ${isoUtc("c.finished_at")} as "finishedAt"
      from crawls c where c.organization_id = k.organization_id and c.knowledgebase_id = k.id
      order by c.created_at desc, c.id) crawl) crawls
  cross join lateral (
    select coalesce(array_to_json(array_agg(page)), '[]') as list, count(*)::int as n from (
      select p.id, p.title, p.template_key as "templateKey", p.parent_page_id as "parentPageId",
        ${isoUtc("p.updated_at")} as "updatedAt", p.hook, p.is_folder as "isFolder", ${PAGE_PATH} as path
      from pages p where p.organization_id = k.organization_id and p.knowledgebase_id = k.id
      order by p.created_at, p.id) page) pages
  where k.id = ($2::uuid[])[a.i] and k.organization_id = ($1::uuid[])[a.i] and k.end_user_id is null
  limit 1) kb) d`;

const readKnowledgebase = batchedReader<{ i: number; body: string }>(
  "atrium_knowledgebase_details",
  KNOWLEDGEBASE_DETAILS,
);

/** The knowledgebase as the API's JSON text of a Knowledgebase, written by PostgreSQL. */
export const getKnowledgebaseJson = guarded(
  { scope: "knowledge:read" },
  async function getKnowledgebaseJson(db: Db, actor: Actor, input: { knowledgebaseId: string }): Promise<string> {
    const row = await readKnowledgebase(db, actor.organizationId, input.knowledgebaseId);
    if (!row) throw knowledgebaseNotFound();
    return row.body;
  },
);

// ---------------------------------------------------------------------------------------------
// Export

export const EXPORT_LIMITS = {
  /** The export cap; tests lower it. */
  maxBytes: 50 * 1024 * 1024,
  /** Exports per minute per key. */
  perMinute: 3,
};

export interface KnowledgebaseExport {
  knowledgebase: Knowledgebase;
  pages: Page[];
  sources: (Source & { text: string })[];
}

export const exportKnowledgebase = guarded(
  { scope: "knowledge:read" },
  async function exportKnowledgebase(
    db: Db,
    actor: Actor,
    input: { knowledgebaseId: string },
  ): Promise<KnowledgebaseExport> {
    if (actor.kind === "key") {
      const limit = await hitRateLimit(db, `export:${actor.keyId}`, EXPORT_LIMITS.perMinute);
      if (!limit.allowed) {
        throw new AppError(
          "rate_limited",
          `Knowledgebase export is limited to ${EXPORT_LIMITS.perMinute} per minute per key. Retry in ${limit.retryAfterSeconds} s.`,
          {},
          { headers: { "Retry-After": rateLimitHeaders(limit)["Retry-After"]! } },
        );
      }
    }
    const knowledgebase = JSON.parse(await getKnowledgebaseJson(db, actor, input)) as Knowledgebase;
    const [total] = await db.$queryRaw<{ bytes: bigint }[]>`
    select coalesce((select sum(octet_length(markdown) + octet_length(title)) from pages where knowledgebase_id = ${knowledgebase.id}::uuid and organization_id = ${actor.organizationId}::uuid), 0)
         + coalesce((select sum(octet_length(coalesce(text, ''))) from sources where knowledgebase_id = ${knowledgebase.id}::uuid and organization_id = ${actor.organizationId}::uuid), 0) as bytes`;
    const bytes = Number(total?.bytes ?? 0);
    if (bytes > EXPORT_LIMITS.maxBytes) {
      throw new AppError(
        "export_too_large",
        `This knowledgebase holds about ${Math.ceil(bytes / 1024 / 1024)} MB of text, over the ${Math.round(EXPORT_LIMITS.maxBytes / 1024 / 1024)} MB export cap; read pages one by one instead.`,
      );
    }
    const pages = await Promise.all(
      knowledgebase.pages.map((page) =>
        getPage(db, actor, { knowledgebaseId: input.knowledgebaseId, pageId: page.id }),
      ),
    );
    const texts = await db.source.findMany({
      where: { organizationId: actor.organizationId, knowledgebaseId: knowledgebase.id },
      select: { id: true, text: true },
    });
    const textOf = new Map(texts.map((row) => [row.id, row.text ?? ""]));
    const result = {
      knowledgebase,
      pages,
      sources: knowledgebase.sources.map((source) => ({ ...source, text: textOf.get(source.id) ?? "" })),
    };
    if (Buffer.byteLength(JSON.stringify(result)) > EXPORT_LIMITS.maxBytes) {
      throw new AppError(
        "export_too_large",
        `This knowledgebase is over the ${Math.round(EXPORT_LIMITS.maxBytes / 1024 / 1024)} MB export cap; read pages one by one instead.`,
      );
    }
    return result;
  },
);
