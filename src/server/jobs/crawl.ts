// Crawls within one host (`crawl: {maxPages, sameHost: true, maxDepth}` on a URL source): the
// pages a crawl found are rows of crawl_pages, its queue, claimed like index_jobs (FOR UPDATE SKIP
// LOCKED, a lease and a token; a page whose process died is claimed again, at most MAX_ATTEMPTS
// times). Each page is fetched and extracted in the extraction child (the SSRF-safe fetcher,
// public addresses only, the child's bounds), becomes a source of its own under the crawl, and
// its links within the start URL's host, allowed by robots.txt, are queued one level deeper,
// while the crawl holds fewer than maxPages pages (counted under the crawl row's lock, so two
// workers never pass it). A sitemap lists pages instead of being one. robots.txt is read once
// per crawl, before its first page; a host whose robots.txt cannot be read is not crawled.
import { randomUUID } from "node:crypto";
import { retryOnConflict, type Db } from "@/server/db";
import { isAppError } from "@/server/errors";
import { logger } from "@/server/observability/log";
import { recordEvent } from "@/server/services/org/events";
import { refuseOverPlanCap } from "@/server/services/support/knowledge-access";
import { toSource } from "@/server/services/support/source-shape";
import type { ExtractedDocument } from "./extraction-child";
import { extractPageInChildProcess, ExtractionUnavailable } from "./extraction-process";
import { FetchRefused, fetchUrl, type Validators } from "./fetch-url";
import type { IndexingOptions } from "./indexing-options";
import { fetchedNow } from "./refresh-schedule";
import { robotsAllow, robotsRules } from "./robots";
import { insertChunks, lockSource, replaceChunks } from "./source-writes";

const LEASE_MS = 2 * 60_000;
const BATCH = 2;
const MAX_ATTEMPTS = 3;
/** robots.txt beyond this is not read (Google reads 500 KiB). */
const MAX_ROBOTS_BYTES = 512 * 1024;

interface ClaimedPage {
  id: string;
  crawlId: string;
  url: string;
  depth: number;
  sourceId: string | null;
  attempts: number;
  claimToken: string;
}

type Crawl = NonNullable<Awaited<ReturnType<Db["crawl"]["findUnique"]>>>;

async function claimPages(db: Db, count: number): Promise<ClaimedPage[]> {
  const token = randomUUID();
  return db.$queryRaw<ClaimedPage[]>`
    update crawl_pages p set status = 'running', claim_token = ${token}::uuid, attempts = p.attempts + 1,
      lease_until = now() + (${LEASE_MS} * interval '1 millisecond')
    where p.id in (
      select id from crawl_pages
      where status = 'queued' or (status = 'running' and lease_until < now())
      order by created_at
      for update skip locked
      limit ${count}
    )
    returning p.id, p.crawl_id as "crawlId", p.url, p.depth, p.source_id as "sourceId", p.attempts,
      p.claim_token as "claimToken"`;
}

/** The crawl's robots.txt, fetched once ("" when the host has none); throws when it cannot be read. */
async function robotsOf(db: Db, crawl: Crawl, options: IndexingOptions): Promise<string> {
  if (crawl.robotsTxt !== null) return crawl.robotsTxt;
  const url = new URL("/robots.txt", crawl.startUrl).href;
  let text: string;
  try {
    const fetched = await fetchUrl(url, { ...options.fetchLimits, maxBytes: MAX_ROBOTS_BYTES, purpose: "content" });
    text = new TextDecoder().decode(fetched.bytes);
  } catch (error) {
    // RFC 9309: a robots.txt that is not there (4xx) allows everything; one that cannot be read allows nothing.
    if (error instanceof FetchRefused && /answered HTTP 4\d\d/.test(error.message)) text = "";
    else throw new FetchRefused(`robots.txt could not be read (${(error as Error).message}); the host is not crawled.`);
  }
  await db.$executeRaw`update crawls set robots_txt = ${text} where id = ${crawl.id}::uuid and robots_txt is null`;
  return text;
}

function pageName(url: string): string {
  const { hostname, pathname } = new URL(url);
  return (hostname + pathname).slice(0, 200);
}

const systemActor = (crawl: Crawl) => ({ kind: "system" as const, organizationId: crawl.organizationId });

/** Marks the page done, failed or skipped if this worker still holds it; false when it does not. */
async function settlePage(
  tx: Pick<Db, "$executeRaw">,
  page: ClaimedPage,
  status: "done" | "failed" | "skipped",
  error: string | null,
  sourceId: string | null,
): Promise<boolean> {
  const owned = await tx.$executeRaw`
    update crawl_pages set status = ${status}, error = ${error}, source_id = ${sourceId}::uuid, claim_token = null,
      lease_until = null
    where id = ${page.id}::uuid and claim_token = ${page.claimToken}::uuid`;
  return owned === 1;
}

/** A page that could not be indexed: its source (the start page's, or a new one) fails with the reason. */
async function failPage(db: Db, crawl: Crawl, page: ClaimedPage, reason: string, skipped = false): Promise<void> {
  await retryOnConflict(() =>
    db.$transaction(async (tx) => {
      let sourceId = page.sourceId;
      if (sourceId) {
        if (!(await lockSource(tx, sourceId))) sourceId = null;
        else
          await tx.source.updateMany({
            where: { id: sourceId, organizationId: crawl.organizationId },
            data: { status: "failed", errorMessage: reason },
          });
      }
      await settlePage(tx, page, skipped ? "skipped" : "failed", reason, sourceId);
    }),
  );
  logger().info(
    { event: "crawl_page_failed", crawlId: crawl.id, url: page.url, reason },
    "A crawled page was not indexed",
  );
}

/** Queues the links within the host that robots.txt allows, while the crawl has room (its row locked). */
async function queueLinks(
  tx: Pick<Db, "$queryRaw" | "$executeRaw">,
  crawl: Crawl,
  links: readonly string[],
  depth: number,
  robots: string,
): Promise<void> {
  const host = new URL(crawl.startUrl).host;
  const rules = robotsRules(robots);
  const candidates = links.filter((link) => new URL(link).host === host && robotsAllow(rules, link));
  if (candidates.length === 0) return;
  await tx.$queryRaw`select 1 from crawls where id = ${crawl.id}::uuid for update`;
  const [{ pages } = { pages: 0 }] = await tx.$queryRaw<{ pages: number }[]>`
    select count(*)::int as pages from crawl_pages where crawl_id = ${crawl.id}::uuid`;
  const room = crawl.maxPages - pages;
  if (room <= 0) return;
  const known = new Set(
    (
      await tx.$queryRaw<{ url: string }[]>`
        select url from crawl_pages where crawl_id = ${crawl.id}::uuid and url = any(${candidates}::text[])`
    ).map((row) => row.url),
  );
  const fresh = candidates.filter((link) => !known.has(link)).slice(0, room);
  if (fresh.length === 0) return;
  await tx.$executeRaw`
    insert into crawl_pages (id, crawl_id, url, depth, status, attempts, created_at)
    select gen_random_uuid(), ${crawl.id}::uuid, u.url, ${depth}, 'queued', 0, clock_timestamp()
    from unnest(${fresh}::text[]) with ordinality as u(url, n) order by u.n
    on conflict (crawl_id, url) do nothing`;
}

/** Writes a fetched page as its source (the start page's, or a new one) and queues its links. */
async function storePage(
  db: Db,
  crawl: Crawl,
  page: ClaimedPage,
  document: ExtractedDocument | null,
  links: string[],
  validators: Validators,
  robots: string,
): Promise<void> {
  await retryOnConflict(() =>
    db.$transaction(
      async (tx) => {
        let sourceId = page.sourceId;
        if (sourceId && !(await lockSource(tx, sourceId))) return;
        const fields = document
          ? {
              status: "ready",
              type: document.type,
              text: document.text,
              sizeBytes: document.sizeBytes,
              errorMessage: null,
              ...fetchedNow(crawl.refresh, validators),
            }
          : // A sitemap: the crawl's list of pages, not a document to search.
            { status: "ready", type: "sitemap", text: "", searchable: false, errorMessage: null };
        if (sourceId) {
          await tx.source.update({ where: { id: sourceId, organizationId: crawl.organizationId }, data: fields });
          await replaceChunks(tx, { id: sourceId, knowledgebaseId: crawl.knowledgebaseId }, document?.chunks ?? []);
        } else if (document) {
          await refuseOverPlanCap(tx, systemActor(crawl), "maxSourcesPerKnowledgebase", crawl.knowledgebaseId, () =>
            tx.source.count({ where: { knowledgebaseId: crawl.knowledgebaseId } }),
          );
          const created = await tx.source.create({
            data: {
              organizationId: crawl.organizationId,
              knowledgebaseId: crawl.knowledgebaseId,
              name: pageName(page.url),
              url: page.url,
              createdVia: crawl.createdVia,
              refresh: crawl.refresh,
              crawlId: crawl.id,
              ...fields,
            },
            omit: { content: true, text: true },
          });
          sourceId = created.id;
          await insertChunks(tx, { id: created.id, knowledgebaseId: crawl.knowledgebaseId }, document.chunks);
          await recordEvent(tx, systemActor(crawl), {
            action: "source.ready",
            target: { type: "source", id: created.id, label: created.name },
            changes: { status: [null, "ready"] },
            data: toSource(created),
          });
        }
        if (!(await settlePage(tx, page, "done", null, sourceId))) throw new LostClaim();
        if (links.length > 0) await queueLinks(tx, crawl, links, page.depth + 1, robots);
      },
      { timeout: 60_000, maxWait: 10_000 },
    ),
  );
}

/** The claim was taken over: this worker's writes are rolled back. */
class LostClaim extends Error {
  override readonly name = "LostClaim";
}

async function crawlPage(db: Db, page: ClaimedPage, options: IndexingOptions): Promise<void> {
  // Unscoped: a page names its crawl, whose row names the organization.
  const crawl = await db.crawl.findUnique({ where: { id: page.crawlId } });
  if (!crawl) return;
  if (page.attempts > MAX_ATTEMPTS)
    return failPage(db, crawl, page, `The page could not be crawled in ${MAX_ATTEMPTS} attempts.`);
  let robots: string;
  try {
    robots = await robotsOf(db, crawl, options);
  } catch (error) {
    return failPage(db, crawl, page, (error as Error).message);
  }
  if (!robotsAllow(robotsRules(robots), page.url))
    return failPage(db, crawl, page, "robots.txt disallows this page; it was not fetched.", true);
  const answer = await extractPageInChildProcess(
    { kind: "page", url: page.url, limits: options.fetchLimits, links: page.depth < crawl.maxDepth },
    options.extraction,
  ).catch((error: unknown) => {
    if (error instanceof ExtractionUnavailable) return { ok: false as const, message: error.message };
    throw error;
  });
  if (!answer.ok) return failPage(db, crawl, page, answer.message);
  if (answer.notModified) return;
  try {
    await storePage(db, crawl, page, answer.document, answer.links, answer.validators, robots);
  } catch (error) {
    if (error instanceof LostClaim) return;
    if (isAppError(error) && error.code === "plan_limit") return failPage(db, crawl, page, error.message, true);
    throw error;
  }
}

/** Ends every crawl with nothing left queued or running. */
async function finishCrawls(db: Db, crawlIds: string[]): Promise<void> {
  await db.$executeRaw`
    update crawls c set status = 'done', finished_at = now()
    where c.id = any(${crawlIds}::uuid[]) and c.status = 'running'
      and not exists (select 1 from crawl_pages p where p.crawl_id = c.id and p.status in ('queued', 'running'))`;
}

/** Crawls a batch of queued pages; how many were claimed. */
export async function runCrawlOnce(db: Db, options: IndexingOptions = {}): Promise<number> {
  const pages = await claimPages(db, BATCH);
  await Promise.all(
    pages.map((page) =>
      crawlPage(db, page, options).catch((error: unknown) => {
        // The lease runs out and the page is claimed again, up to MAX_ATTEMPTS.
        logger().error({ err: error, crawlId: page.crawlId, url: page.url }, "A crawled page could not be stored");
      }),
    ),
  );
  if (pages.length > 0) await finishCrawls(db, [...new Set(pages.map((page) => page.crawlId))]);
  return pages.length;
}
