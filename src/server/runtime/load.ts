// Finding what a run executes: an app's live version with its adviser and members at the
// versions pinned when the app was published, or (for tests) an item's draft.
import { AgentDocument, AppDocument, FlowDocument, type BuilderKind } from "@/schemas/builder/builder";
import { isUuid } from "@/schemas/common";
import { incompleteNodes } from "@/schemas/builder/flow-graph";
import type { Actor } from "@/server/auth/actor";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import type { AppPins } from "@/server/services/support/builder-kind-shared";
import { priceListJson, priceListOf } from "@/server/services/org/model-prices";
import { providerRowsJson, type ProviderRow } from "./models";
import type { ModelPrice, PriceList } from "./pricing";
import type { AppRun, Member } from "./run";
import type { Runnable } from "./run-context";
import { KeptAtEpoch, lookupEpochSql } from "@/server/lookup-epoch";

const PARSERS = { agent: AgentDocument, flow: FlowDocument, app: AppDocument } as const;

/**
 * Versions never change once published, so their parsed documents are kept per process:
 * a conversation turn then reads only which versions are live, not their documents.
 */
const versionCache = new Map<
  string,
  { organizationId: string; itemId: string; document: unknown; pins: unknown; parsed?: unknown }
>();
const VERSION_CACHE_LIMIT = 5_000;

async function versionsById(db: Db, organizationId: string, ids: string[]) {
  const missing = ids.filter((id) => !versionCache.has(id));
  if (missing.length) {
    const rows = await db.builderVersion.findMany({ where: { id: { in: missing }, organizationId } });
    for (const row of rows) {
      if (versionCache.size >= VERSION_CACHE_LIMIT) versionCache.delete(versionCache.keys().next().value!);
      versionCache.set(row.id, {
        organizationId: row.organizationId,
        itemId: row.itemId,
        document: row.document,
        pins: row.pins,
      });
    }
  }
  // A cached version is another organization's as much as a stored one: only the run's own count.
  return new Map(
    ids.flatMap((id) =>
      versionCache.get(id)?.organizationId === organizationId ? [[id, versionCache.get(id)!] as const] : [],
    ),
  );
}

function notFound(kind: BuilderKind): AppError {
  return new AppError("not_found", `No ${kind} with that id.`);
}

export interface LiveApp extends AppRun {
  versionId: string;
  /** The organization's model prices, read with the app: the run's charge needs no statement of its own. */
  prices: PriceList;
}

/** A cached version's document, parsed once. */
function parsed<T>(versionId: string, parser: { parse(value: unknown): T }): T {
  const version = versionCache.get(versionId)!;
  version.parsed ??= parser.parse(version.document);
  return version.parsed as T;
}

/** The live version of each flow, for an agent's attached flows (its tools). */
async function liveFlows(db: Db, organizationId: string, ids: string[]): Promise<Runnable<FlowDocument>[]> {
  if (ids.length === 0) return [];
  const items = await db.builderItem.findMany({
    where: { organizationId, kind: "flow", id: { in: ids }, productionVersionId: { not: null } },
    select: { id: true, productionVersionId: true },
  });
  const versions = await versionsById(
    db,
    organizationId,
    items.map((item) => item.productionVersionId!),
  );
  return [...versions].map(([versionId, version]) => ({
    id: version.itemId,
    versionId,
    document: parsed(versionId, FlowDocument),
  }));
}

/**
 * The app's live version, which of the items it pins (adviser, members) still exist, the
 * organization's model providers (for the run's models and searches) and its model prices (for
 * the run's charge), in one statement on the pool: a conversation turn's first read. Documents
 * come from the cache above.
 */
const LIVE_APP_SQL = `
  select v.id as version_id, i.production_version_id as live_version_id, ${providerRowsJson("$1")} as providers,
    ${priceListJson("$1")} as prices,
    array(
      select p.id::text from builder_items p
      where p.organization_id = $1 and p.id in (
        select (v.pins->'adviser'->>'id')::uuid
        union all
        select (member->>'id')::uuid from jsonb_array_elements(coalesce(v.pins->'members', '[]'::jsonb)) as member
      )
    ) as present,
    ${lookupEpochSql("$1")} as epoch
  from builder_items i
  left join builder_versions v
    on v.id = coalesce($3::uuid, i.production_version_id) and v.organization_id = $1 and v.item_id = i.id
  where i.id = $2 and i.organization_id = $1 and i.kind = 'app'`;

/**
 * Up to 1,000 apps as published, each at the epoch it was read at. A kept app holds its members'
 * parsed documents even once the version cache above has let them go, so it keeps fewer.
 */
const keptApps = new KeptAtEpoch<LiveApp>(1_000);

/**
 * The app as published: live version (or `pinnedVersionId`, a version of this app), pinned
 * adviser and members. A pinned item that is gone answers unpublished_dependencies, naming it.
 * An app never made live is not_found, whichever version is asked for; a version of another
 * app or organization is version_not_found.
 *
 * The process keeps the app as loaded, at the organization's lookup epoch read with it, for the
 * requests whose key check read that same epoch (`actor.lookupEpoch`): a publish, a deletion or a
 * price change moves the epoch on at its commit, so every process's next request reads the app
 * again (prisma/migrations/20261207130000_live_app_lookup_epoch). Refusals are never kept.
 */
export async function loadLiveApp(
  db: Db,
  actor: Pick<Actor, "organizationId"> & { lookupEpoch?: string },
  appId: string,
  pinnedVersionId?: string,
): Promise<LiveApp> {
  if (!isUuid(appId)) throw notFound("app");
  const pinned = pinnedVersionId === undefined ? null : pinnedVersionId.toLowerCase();
  const noSuchVersion = () => new AppError("version_not_found", "The app has no version with that id.");
  if (pinned !== null && !isUuid(pinned)) throw noSuchVersion();
  const keptAs = `${actor.organizationId}/${appId.toLowerCase()}/${pinned ?? "live"}`;
  const known = keptApps.get(db, keptAs, actor.lookupEpoch);
  if (known) return known;
  const { rows } = await db.pool.query<{
    version_id: string | null;
    live_version_id: string | null;
    present: string[];
    providers: ProviderRow[];
    prices: Record<string, ModelPrice>;
    epoch: string;
  }>({
    name: "atrium_live_app",
    text: LIVE_APP_SQL,
    values: [actor.organizationId, appId, pinned],
  });
  if (!rows[0]?.live_version_id) throw notFound("app");
  const versionId = rows[0].version_id;
  if (!versionId) throw pinned ? noSuchVersion() : notFound("app");
  const version = (await versionsById(db, actor.organizationId, [versionId])).get(versionId);
  if (!version || version.itemId !== appId) throw notFound("app");
  const document = parsed(versionId, AppDocument);
  const pins = (version.pins as AppPins | null) ?? { adviser: null, members: [] };
  const wanted = [...(pins.adviser ? [{ ...pins.adviser, kind: "agent" as const }] : []), ...pins.members];
  // Pinned versions are immutable, but their items can be deleted: the statement says which remain.
  const present = new Set(rows[0]!.present);
  const byId = await versionsById(
    db,
    actor.organizationId,
    wanted.filter((pin) => present.has(pin.id)).map((pin) => pin.versionId),
  );
  const missing = wanted.filter((pin) => !byId.has(pin.versionId));
  if (missing.length) {
    throw new AppError(
      "unpublished_dependencies",
      "The app's adviser or a member is no longer published; republish them and the app.",
      {
        dependencies: missing.map((pin) => ({ id: pin.id, kind: pin.kind, name: "" })),
      },
    );
  }
  const agentOf = async (pin: { id: string; versionId: string }) => {
    const document = parsed(pin.versionId, AgentDocument);
    return {
      runnable: { id: pin.id, versionId: pin.versionId, document },
      flows: await liveFlows(db, actor.organizationId, document.flows),
    };
  };
  const members: Member[] = [];
  for (const pin of pins.members) {
    if (pin.kind === "agent") members.push({ kind: "agent", ...(await agentOf(pin)) });
    else
      members.push({
        kind: "flow",
        runnable: { id: pin.id, versionId: pin.versionId, document: parsed(pin.versionId, FlowDocument) },
      });
  }
  const app: LiveApp = {
    versionId,
    app: { id: appId, versionId, document },
    adviser: pins.adviser ? await agentOf(pins.adviser) : null,
    members,
    providers: rows[0]!.providers,
    prices: priceListOf(rows[0]!.prices),
  };
  return keptApps.keep(db, keptAs, app, rows[0]!.epoch);
}

/** An item's draft for a test run; an app draft's members run at their live versions. */
export async function loadDraft(db: Db, actor: Actor, kind: BuilderKind, id: string) {
  const item = await db.builderItem.findFirst({ where: { id, organizationId: actor.organizationId, kind } });
  if (!item) throw notFound(kind);
  const runnable = { id: item.id, versionId: null, document: PARSERS[kind].parse(item.draft) };
  return { item, runnable };
}

/**
 * Refuses to run a flow draft whose nodes still lack their data (a draft may hold them while
 * being built): `invalid_workflow` naming each node, before anything runs or is charged.
 */
export function assertCompleteDraft(kind: BuilderKind, document: unknown): void {
  if (kind !== "flow") return;
  const missing = incompleteNodes((document as FlowDocument).nodes);
  if (missing.length === 0) return;
  throw new AppError(
    "invalid_workflow",
    `The flow is not complete: node ${missing[0]!.nodeId} needs ${missing[0]!.need}${missing.length > 1 ? ` (and ${missing.length - 1} more)` : ""}.`,
    {
      feedback: missing.map(({ nodeId, message }) => ({ nodeId, message })),
    },
  );
}

/** An app draft made runnable: adviser and members at their live versions (else unpublished_dependencies). */
export async function appRunForDraft(db: Db, actor: Actor, app: Runnable<AppDocument>): Promise<AppRun> {
  const doc = app.document;
  const ids = [...(doc.adviser ? [doc.adviser.id] : []), ...doc.members.map((m) => m.id)];
  const items = await db.builderItem.findMany({ where: { organizationId: actor.organizationId, id: { in: ids } } });
  const unpublished = ids.filter((id) => !items.find((item) => item.id === id)?.productionVersionId);
  if (unpublished.length) {
    throw new AppError("unpublished_dependencies", "The app's adviser or a member is not published.", {
      dependencies: unpublished.map((id) => {
        const item = items.find((i) => i.id === id);
        return {
          id,
          kind: item?.kind ?? (doc.adviser?.id === id ? "agent" : "agent"),
          name: String((item?.draft as { name?: string } | undefined)?.name ?? ""),
        };
      }),
    });
  }
  const versions = await db.builderVersion.findMany({
    where: { organizationId: actor.organizationId, id: { in: items.map((item) => item.productionVersionId!) } },
  });
  const live = (id: string) => versions.find((v) => v.itemId === id)!;
  const agent = async (id: string) => {
    const version = live(id);
    const document = AgentDocument.parse(version.document);
    return {
      runnable: { id, versionId: version.id, document },
      flows: await liveFlows(db, actor.organizationId, document.flows),
    };
  };
  const members: Member[] = [];
  for (const member of [...doc.members].sort((a, b) => a.position - b.position)) {
    const version = live(member.id);
    if (member.kind === "agent") members.push({ kind: "agent", ...(await agent(member.id)) });
    else
      members.push({
        kind: "flow",
        runnable: { id: member.id, versionId: version.id, document: FlowDocument.parse(version.document) },
      });
  }
  return { app, adviser: doc.adviser ? await agent(doc.adviser.id) : null, members };
}
