// The apps a portal offers its end user, and the conversation starters of live app versions.
import type { PortalApp } from "@/schemas/portal/portal";
import type { EndUserActor } from "@/server/auth/actor";
import type { Db } from "@/server/db";
import { appsUsableBy } from "./portal-access";

const STARTERS_SHOWN = 4;

interface VersionDocument {
  name?: string;
  description?: string;
  api?: { greeting?: string; conversationEnabled?: boolean };
  conversationStarters?: string[];
}

interface AppPinsDocument {
  adviser?: { versionId: string } | null;
  members?: { kind: string; versionId: string }[];
}

/** The agent versions an app version pins: its adviser's and its agent members'. */
function pinnedAgentVersions(pins: AppPinsDocument | null): string[] {
  return [
    ...(pins?.adviser ? [pins.adviser.versionId] : []),
    ...(pins?.members ?? []).filter((m) => m.kind === "agent").map((m) => m.versionId),
  ];
}

/**
 * Conversation starters of live app versions, by app id: those of the app's adviser and agents at
 * their pinned versions (the portal and the console chat offer the same).
 */
export async function conversationStarters(
  db: Db,
  organizationId: string,
  versions: { itemId: string; pins: unknown }[],
): Promise<Map<string, string[]>> {
  const agentVersionIds = versions.flatMap((version) => pinnedAgentVersions(version.pins as AppPinsDocument | null));
  const agentDocuments = new Map(
    agentVersionIds.length
      ? (
          await db.builderVersion.findMany({
            where: { organizationId, id: { in: agentVersionIds } },
            select: { id: true, document: true },
          })
        ).map((row) => [row.id, row.document as VersionDocument])
      : [],
  );
  return new Map(
    versions.map((version) => [
      version.itemId,
      [
        ...new Set(
          pinnedAgentVersions(version.pins as AppPinsDocument | null).flatMap(
            (id) => agentDocuments.get(id)?.conversationStarters ?? [],
          ),
        ),
      ].slice(0, STARTERS_SHOWN),
    ]),
  );
}

/**
 * The apps an end user can chat with in this portal, as published: featured apps first in the
 * portal's order, then by name. Conversation starters come from the app's adviser and agents.
 */
export async function listPortalApps(
  db: Db,
  actor: EndUserActor,
  portal: { id: string; featuredAppIds: string[] },
): Promise<PortalApp[]> {
  const usable = await appsUsableBy(db, actor.organizationId, actor.endUser.id, portal.id);
  if (usable.length === 0) return [];
  const items = await db.builderItem.findMany({
    where: {
      organizationId: actor.organizationId,
      kind: "app",
      id: { in: usable },
      productionVersionId: { not: null },
    },
    select: { id: true, productionVersionId: true },
  });
  const versions = await db.builderVersion.findMany({
    where: { organizationId: actor.organizationId, id: { in: items.map((item) => item.productionVersionId!) } },
    select: { itemId: true, document: true, pins: true },
  });
  const starters = await conversationStarters(db, actor.organizationId, versions);
  const apps = versions.flatMap((version): PortalApp[] => {
    const document = version.document as VersionDocument;
    if (document.api?.conversationEnabled === false) return [];
    return [
      {
        id: version.itemId,
        name: document.name ?? "",
        description: document.description ?? "",
        greeting: document.api?.greeting ?? "",
        conversationStarters: starters.get(version.itemId) ?? [],
      },
    ];
  });
  const featured = (id: string) => {
    const position = portal.featuredAppIds.indexOf(id);
    return position === -1 ? Number.MAX_SAFE_INTEGER : position;
  };
  return apps.sort(
    (a, b) => featured(a.id) - featured(b.id) || a.name.localeCompare(b.name) || a.id.localeCompare(b.id),
  );
}
