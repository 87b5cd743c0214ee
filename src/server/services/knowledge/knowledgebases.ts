// Knowledgebases: list, create (plan cap), detail with sources and the page index, export.
// An end user's own notebook is a knowledgebase with endUserId set; to the API it does not exist.
import type {
  CrawlSummary,
  Knowledgebase,
  KnowledgebaseLanguage,
  KnowledgebaseSearchMode,
  KnowledgebaseSummary,
  PageIndexEntry,
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
import { findKnowledgebase, refuseOverPlanCap } from "../support/knowledge-access";
import { nameContains } from "../org/name-search";
import { getPage } from "./pages";
import { batchedReader } from "../support/batched-reads";
import { isoUtc } from "../support/sql-json";
import { pick } from "@/lib/pick";

/** A knowledgebase's own columns, its times as the query reads them (Prisma: Date; the detail's JSON: text). */
interface KnowledgebaseColumns<Time> {
  id: string;
  name: string;
  description: string;
  language: string;
  searchMode: string;
  rerank: boolean;
  createdAt: Time;
  updatedAt: Time;
}

/** Its id and the settings a knowledgebase is made with, as the API names them. */
function settingsOf<Time>(row: KnowledgebaseColumns<Time>) {
  return {
    ...pick(row, ["id", "name", "description", "rerank"]),
    language: row.language as KnowledgebaseLanguage,
    searchMode: row.searchMode as KnowledgebaseSearchMode,
  };
}

async function summaries(db: Db, rows: KnowledgebaseColumns<Date>[]): Promise<KnowledgebaseSummary[]> {
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

/** A page as the detail statement gives it, `updatedAt` already as ISO text. */
type IndexRow = {
  id: string;
  title: string;
  templateKey: string;
  parentPageId: string | null;
  updatedAt: string;
  hook: string;
  isFolder: boolean;
};

/** The page index with each page's path (titles from the top level down to the page). */
export function pageIndex(rows: IndexRow[]): PageIndexEntry[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const pathOf = (row: IndexRow): string[] => {
    const path: string[] = [];
    const seen = new Set<string>();
    for (
      let at: IndexRow | undefined = row;
      at && !seen.has(at.id);
      at = at.parentPageId ? byId.get(at.parentPageId) : undefined
    ) {
      seen.add(at.id);
      path.unshift(at.title);
    }
    return path;
  };
  return rows.map((row) => ({
    id: row.id,
    title: row.title,
    templateKey: row.templateKey,
    parentPageId: row.parentPageId,
    updatedAt: row.updatedAt,
    hook: row.hook,
    isFolder: row.isFolder,
    path: pathOf(row),
  }));
}

/**
 * The knowledgebases asked for together (batched-reads.ts), each with its sources and page index,
 * in one statement on the pool (a hot read). Each is read in a lateral subquery that `limit 1`
 * keeps from being merged into a join, so that the plan probes the primary key once for each id
 * (merged, the planner guesses a thousand ids and may hash the whole table). Explicit columns
 * only: sources as the API shows them, pages as index rows for pageIndex().
 * Built as json, not jsonb: the rows are only read back as text, and jsonb's binary form would
 * be built and then printed again. Each list is json_agg over a subquery whose column names are
 * the fields: PostgreSQL builds those objects from the row's own layout, about a fifth faster for
 * 50 pages than json_build_object with its keys written out (BENCHMARKS.md). The subquery's
 * ORDER BY is the list's order: PostgreSQL's documentation of aggregate functions names extra
 * processing at the aggregate's level, such as a join, as what could reorder it, so keep none
 * there (tests/knowledge/knowledgebases.test.ts checks the order).
 */
const KNOWLEDGEBASE_DETAILS = `
  select a.i, d.* from generate_subscripts($2::uuid[], 1) as a(i)
  cross join lateral (
  select k.id, k.name, k.description, k.language, k.search_mode as "searchMode", k.rerank, ${isoUtc("k.created_at")} as "createdAt", ${isoUtc("k.updated_at")} as "updatedAt",
    coalesce((
      select json_agg(source) from (
        select s.id, s.name, s.type, s.status, s.searchable, s.disabled, coalesce(s.url, '') as url,
          ${isoUtc("s.updated_at")} as "updatedAt", ${isoUtc("s.created_at")} as "createdAt", s.size_bytes as "sizeBytes",
          coalesce(s.error_message, '') as "errorMessage", s.created_via as "createdVia",
          case when s.refresh in ('daily', 'weekly') then s.refresh end as refresh,
          ${isoUtc("s.checked_at")} as "checkedAt", coalesce(s.refresh_error, '') as "refreshError", s.crawl_id as "crawlId"
        from sources s where s.organization_id = k.organization_id and s.knowledgebase_id = k.id
        order by s.created_at, s.id) source), '[]'::json) as sources,
    coalesce((
      select json_agg(crawl) from (
        select c.id, c.start_url as "startUrl", c.max_pages as "maxPages", c.max_depth as "maxDepth",
          case when c.refresh in ('daily', 'weekly') then c.refresh end as refresh, c.status,
          (select count(*)::int from sources s where s.crawl_id = c.id and s.organization_id = k.organization_id) as pages,
          ${isoUtc("c.created_at")} as "startedAt", ${isoUtc("c.finished_at")} as "finishedAt"
        from crawls c where c.organization_id = k.organization_id and c.knowledgebase_id = k.id
        order by c.created_at desc, c.id) crawl), '[]'::json) as crawls,
    coalesce((
      select json_agg(page) from (
        select p.id, p.title, p.template_key as "templateKey", p.parent_page_id as "parentPageId",
          ${isoUtc("p.updated_at")} as "updatedAt", p.hook, p.is_folder as "isFolder"
        from pages p where p.organization_id = k.organization_id and p.knowledgebase_id = k.id
        order by p.created_at, p.id) page), '[]'::json) as pages
  from knowledgebases k
  where k.id = ($2::uuid[])[a.i] and k.organization_id = ($1::uuid[])[a.i] and k.end_user_id is null
  limit 1) d`;

interface KnowledgebaseDetailRow extends KnowledgebaseColumns<string> {
  i: number;
  sources: Source[];
  crawls: CrawlSummary[];
  pages: IndexRow[];
}

const readKnowledgebase = batchedReader<KnowledgebaseDetailRow>("atrium_knowledgebase_details", KNOWLEDGEBASE_DETAILS);

export const getKnowledgebase = guarded(
  { scope: "knowledge:read" },
  async function getKnowledgebase(db: Db, actor: Actor, input: { knowledgebaseId: string }): Promise<Knowledgebase> {
    const row = await readKnowledgebase(db, actor.organizationId, input.knowledgebaseId);
    if (!row) throw new AppError("not_found", "No knowledgebase with that id in this organization.");
    return {
      ...settingsOf(row),
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
      counts: { sources: row.sources.length, pages: row.pages.length },
      sources: row.sources,
      crawls: row.crawls,
      pages: pageIndex(row.pages),
    };
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
    const knowledgebase = await getKnowledgebase(db, actor, input);
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
