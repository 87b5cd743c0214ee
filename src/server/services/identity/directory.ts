// The organization's directory (contract: "Directory sync: SCIM 2.0"): what the SCIM door did or
// was refused, and the console's Directory page (its tokens and the default plan). The SCIM
// resources themselves are directory-users.ts and directory-groups.ts.
import { SCIM_SCOPE } from "@/schemas/identity/auth";
import { printableText } from "@/schemas/text";
import type { DirectoryOverview, SetDirectoryDefaultPlanInput } from "@/schemas/identity/directory";
import type { Actor, KeyActor } from "@/server/auth/actor";
import { hashSecret, randomToken } from "@/server/auth/secrets";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import type { ScimObject } from "@/server/scim/schema";
import { logger } from "@/server/observability/log";
import { changesBetween, recordEvent, SECRET_CHANGED } from "../org/events";
import { scimBaseUrl } from "./directory-shared";
import { fullNameOf } from "./directory-users";
import { samlAcsUrl, samlEntityId } from "./saml";
import { redirectUri } from "./sso";
import { liveTierPlan } from "../provisioning/tier-plans";

// ---------------------------------------------------------------------------------------------
// Sync activity

const EVENT_DAYS_KEPT = 30;
const MAX_EVENT_TEXT_CHARS = 1_000;

/**
 * Records what the directory did or was refused (the console's sync activity); 30 days are kept.
 * A refusal is also the audit event `directory.sync_failed` (a webhook), with what was sent and
 * why it failed. Never fails the request.
 */
export async function recordDirectoryEvent(
  db: Db,
  actor: KeyActor,
  action: string,
  status: number,
  detail: string,
  scimType: string | null = null,
): Promise<void> {
  const { organizationId } = actor;
  // A refusal's detail may quote what was sent, U+0000 included, which PostgreSQL cannot store.
  const request = printableText(action).slice(0, MAX_EVENT_TEXT_CHARS);
  const reason = printableText(detail).slice(0, MAX_EVENT_TEXT_CHARS);
  try {
    await db.$transaction([
      db.directoryEvent.create({ data: { organizationId, action: request, status, detail: reason } }),
      db.directoryEvent.deleteMany({
        where: { organizationId, createdAt: { lt: new Date(Date.now() - EVENT_DAYS_KEPT * 86_400_000) } },
      }),
      ...(status >= 400
        ? [
            recordEvent(db, actor, {
              action: "directory.sync_failed",
              target: { type: "directory", id: null, label: request },
              outcome: "failure",
              data: { object: "directory_sync_failure", request, status, scimType, detail: reason },
            }),
          ]
        : []),
    ]);
  } catch (error) {
    logger().error({ err: error }, "Could not record a directory event");
  }
}

// ---------------------------------------------------------------------------------------------
// The console's Directory page (admins; no API key reaches it)

/** Rows the Directory page lists at most: the newest directory users, all groups up to this, the latest events. */
const CONSOLE_ROWS = 200;
const CONSOLE_EVENTS = 50;
const TOKEN_NAME = "Directory (SCIM)";

const tokenSelect = { id: true, name: true, prefix: true, createdAt: true, lastUsedAt: true } as const;

function toToken(row: { id: string; name: string; prefix: string; createdAt: Date; lastUsedAt: Date | null }) {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  };
}

export const getDirectoryOverview = guarded(
  { may: "settings" },
  async function getDirectoryOverview(db: Db, actor: Actor): Promise<DirectoryOverview> {
    const organizationId = actor.organizationId;
    const [organization, tokens, users, userCount, groups, events] = await Promise.all([
      db.organization.findUniqueOrThrow({ where: { id: organizationId }, select: { directoryDefaultPlanId: true } }),
      db.apiKey.findMany({
        where: { organizationId, revokedAt: null, scopes: { has: SCIM_SCOPE } },
        select: tokenSelect,
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      }),
      db.directoryUser.findMany({
        where: { organizationId },
        select: {
          id: true,
          userName: true,
          active: true,
          attributes: true,
          updatedAt: true,
          endUser: { select: { id: true, email: true, suspendedAt: true } },
        },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: CONSOLE_ROWS,
      }),
      db.directoryUser.count({ where: { organizationId } }),
      db.userGroup.findMany({
        where: { organizationId, directoryManaged: true },
        select: { id: true, name: true, updatedAt: true, _count: { select: { members: true } } },
        orderBy: [{ name: "asc" }, { id: "asc" }],
        take: CONSOLE_ROWS,
      }),
      db.directoryEvent.findMany({
        where: { organizationId },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: CONSOLE_EVENTS,
      }),
    ]);
    return {
      scimUrl: scimBaseUrl(),
      oidcRedirectUri: redirectUri(),
      samlServiceProvider: {
        entityId: samlEntityId(organizationId),
        acsUrl: samlAcsUrl(),
        metadataUrl: samlEntityId(organizationId),
      },
      tokens: tokens.map(toToken),
      defaultPlanId: organization.directoryDefaultPlanId,
      userCount,
      users: users.map((user) => ({
        id: user.id,
        userName: user.userName,
        displayName: fullNameOf((user.attributes ?? {}) as ScimObject),
        active: user.active,
        endUser: user.endUser
          ? {
              id: user.endUser.id,
              email: user.endUser.email,
              suspendedAt: user.endUser.suspendedAt?.toISOString() ?? null,
            }
          : null,
        updatedAt: user.updatedAt.toISOString(),
      })),
      groups: groups.map((group) => ({
        id: group.id,
        name: group.name,
        memberCount: group._count.members,
        updatedAt: group.updatedAt.toISOString(),
      })),
      events: events.map((event) => ({
        id: event.id,
        action: event.action,
        status: event.status,
        detail: event.detail,
        createdAt: event.createdAt.toISOString(),
      })),
    };
  },
);

/**
 * A new SCIM token, shown once; the organization's other SCIM tokens are revoked with it, so
 * rotating is one step (paste the new one into the identity provider at once).
 */
export const rotateDirectoryToken = guarded(
  { may: "settings" },
  async function rotateDirectoryToken(db: Db, actor: Actor) {
    const secret = randomToken("sk_org_");
    const row = await db.$transaction(async (tx) => {
      const revoked = await tx.apiKey.updateManyAndReturn({
        where: { organizationId: actor.organizationId, revokedAt: null, scopes: { has: SCIM_SCOPE } },
        data: { revokedAt: new Date() },
        select: { id: true, name: true },
      });
      for (const key of revoked)
        await recordEvent(tx, actor, {
          action: "api_key.revoke",
          target: { type: "api_key", id: key.id, label: key.name },
        });
      const created = await tx.apiKey.create({
        data: {
          organizationId: actor.organizationId,
          kind: "organization",
          name: TOKEN_NAME,
          scopes: [SCIM_SCOPE],
          prefix: secret.slice(0, 12),
          secretHash: hashSecret(secret),
        },
        select: tokenSelect,
      });
      await recordEvent(tx, actor, {
        action: "api_key.create",
        target: { type: "api_key", id: created.id, label: created.name },
        changes: { scopes: [null, [SCIM_SCOPE]], secret: [null, SECRET_CHANGED] },
      });
      return created;
    });
    return { ...toToken(row), secret };
  },
);

/** The plan new directory end users are subscribed to; null for none. */
export const setDirectoryDefaultPlan = guarded(
  { may: "settings" },
  async function setDirectoryDefaultPlan(
    db: Db,
    actor: Actor,
    input: SetDirectoryDefaultPlanInput,
  ): Promise<{
    defaultPlanId: string | null;
  }> {
    if (input.tierPlanId) {
      await liveTierPlan(db, actor.organizationId, input.tierPlanId);
    }
    await db.$transaction(async (tx) => {
      const before = await tx.organization.findUniqueOrThrow({
        where: { id: actor.organizationId },
        select: { name: true, directoryDefaultPlanId: true },
      });
      await tx.organization.update({
        where: { id: actor.organizationId },
        data: { directoryDefaultPlanId: input.tierPlanId },
      });
      await recordEvent(tx, actor, {
        action: "organization.update",
        target: { type: "organization", id: actor.organizationId, label: before.name },
        changes: changesBetween(before, { directoryDefaultPlanId: input.tierPlanId }, ["directoryDefaultPlanId"]),
      });
    });
    return { defaultPlanId: input.tierPlanId };
  },
);
