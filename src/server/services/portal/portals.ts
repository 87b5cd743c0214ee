import type { z } from "zod";
import { isUuid } from "@/schemas/common";
import {
  RESERVED_SLUGS,
  SLUG_PATTERN,
  type CreatePortalInput,
  type Portal,
  type PortalDetail,
  type PublicPortal,
  type UpdatePortalInput,
  type PortalIdInput,
  type ListPortalsInput,
} from "@/schemas/portal/portal";
import type { Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError, isUniqueViolation } from "@/server/errors";
import type { Portal as StoredPortal, Prisma } from "@/generated/prisma/client";
import { randomToken } from "@/server/auth/secrets";
import { sealSecret } from "@/server/secret-box";
import { changesBetween, recorded, SECRET_CHANGED } from "../org/events";
import { nameContains } from "../org/name-search";
import { oldestFirst } from "../support/pagination";
import { findLivePlan } from "../provisioning/tier-plans";
import { pick } from "@/lib/pick";

const SLUG_TAKEN = "That slug is taken by another portal; choose another.";

type PortalRow = {
  id: string;
  name: string;
  slug: string;
  greeting: string;
  logoUrl: string | null;
  accentColor: string | null;
  featuredAppIds: string[];
  signIn: string;
  defaultLanguage: string;
  embedEnabled: boolean;
  embedAllowedOrigins: string[];
  embedSecret: string | null;
  provisionPlanId: string | null;
  createdAt: Date;
};

function toPortal(row: PortalRow): Portal {
  return {
    ...pick(row, ["id", "name", "slug", "greeting", "logoUrl", "accentColor", "featuredAppIds"]),
    signIn: row.signIn as Portal["signIn"],
    defaultLanguage: row.defaultLanguage as Portal["defaultLanguage"],
    embed: { enabled: row.embedEnabled, allowedOrigins: row.embedAllowedOrigins, hasSecret: row.embedSecret !== null },
    provisionPlanId: row.provisionPlanId,
    createdAt: row.createdAt.toISOString(),
  };
}

export function portalPath(slug: string): string {
  return `/p/${slug}`;
}

function toDetail(row: PortalRow): PortalDetail {
  return { ...toPortal(row), url: portalPath(row.slug) };
}

/** A slug from a name: lowercase words joined by dashes, at most 40 characters. */
export function slugFromName(name: string): string {
  const base = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    // Runs are single dashes by now: trimming one at each end is enough.
    .replace(/^-|-$/g, "")
    .slice(0, 40)
    .replace(/-$/, "");
  return base.length >= 2 && !RESERVED_SLUGS.includes(base) ? base : `portal${base ? `-${base}` : ""}`;
}

/** The name's slug, or the first free one with a number after it. */
async function freeSlug(db: Db, name: string): Promise<string> {
  const base = slugFromName(name);
  const taken = new Set(
    (await db.portal.findMany({ where: { slug: { startsWith: base } }, select: { slug: true } })).map(
      (row) => row.slug,
    ),
  );
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

async function assertAppsOfOrganization(db: Db, organizationId: string, appIds: string[] | undefined): Promise<void> {
  if (!appIds?.length) return;
  const found = await db.builderItem.count({ where: { organizationId, kind: "app", id: { in: appIds } } });
  if (found !== new Set(appIds).size) {
    throw new AppError(
      "invalid_request",
      "Invalid request: featuredAppIds names an app that is not in this organization.",
      {
        problems: [{ path: "featuredAppIds", message: "Unknown app" }],
      },
    );
  }
}

/** The provisioning plan must be a live plan of the organization. */
async function assertProvisionPlan(db: Db, organizationId: string, planId: string | null | undefined): Promise<void> {
  if (!planId) return;
  if (!(await findLivePlan(db, organizationId, planId)))
    throw new AppError(
      "invalid_request",
      "Invalid request: provisionPlanId names no active plan of this organization.",
      {
        problems: [{ path: "provisionPlanId", message: "Unknown plan" }],
      },
    );
}

function portalTarget(portal: { id: string; name: string }) {
  return { type: "portal", id: portal.id, label: portal.name };
}

export const createPortal = guarded(
  { scope: "end_users:write", may: "grant" },
  async function createPortal(db: Db, actor: Actor, input: CreatePortalInput): Promise<Portal> {
    await assertAppsOfOrganization(db, actor.organizationId, input.featuredAppIds);
    // A generated slug can lose a race with another create; try the next free one.
    for (let attempt = 0; ; attempt++) {
      const slug = input.slug ?? (await freeSlug(db, input.name));
      try {
        const create = (tx: Prisma.TransactionClient) =>
          tx.portal.create({
            data: {
              organizationId: actor.organizationId,
              name: input.name,
              slug,
              greeting: input.greeting ?? "",
              logoUrl: input.logoUrl ?? null,
              accentColor: input.accentColor ?? null,
              featuredAppIds: [...new Set(input.featuredAppIds ?? [])],
              defaultLanguage: input.defaultLanguage,
            },
          });
        const row = await recorded(db, actor, create, (portal) => ({
          action: "portal.create",
          target: portalTarget(portal),
          changes: { name: [null, portal.name], slug: [null, portal.slug] },
        }));
        return toPortal(row);
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        if (input.slug || attempt >= 3) throw new AppError("conflict", SLUG_TAKEN);
      }
    }
  },
);

export const updatePortal = guarded(
  { scope: "end_users:write", may: "grant" },
  async function updatePortal(db: Db, actor: Actor, input: UpdatePortalInput): Promise<PortalDetail> {
    const existing = await db.portal.findFirst({ where: { id: input.id, organizationId: actor.organizationId } });
    if (!existing) throw new AppError("not_found", "No portal with that id.");
    await assertAppsOfOrganization(db, actor.organizationId, input.featuredAppIds);
    await assertProvisionPlan(db, actor.organizationId, input.provisionPlanId);
    try {
      const update = (tx: Prisma.TransactionClient) =>
        tx.portal.update({
          where: { id: existing.id, organizationId: actor.organizationId },
          data: {
            name: input.name,
            slug: input.slug,
            greeting: input.greeting,
            logoUrl: input.logoUrl,
            accentColor: input.accentColor,
            featuredAppIds: input.featuredAppIds ? [...new Set(input.featuredAppIds)] : undefined,
            signIn: input.signIn,
            defaultLanguage: input.defaultLanguage,
            embedEnabled: input.embed?.enabled,
            embedAllowedOrigins: input.embed?.allowedOrigins ? [...new Set(input.embed.allowedOrigins)] : undefined,
            provisionPlanId: input.provisionPlanId,
          },
        });
      const fields = [
        "name",
        "slug",
        "greeting",
        "logoUrl",
        "accentColor",
        "featuredAppIds",
        "signIn",
        "defaultLanguage",
        "embedEnabled",
        "embedAllowedOrigins",
        "provisionPlanId",
      ] as const;
      const row = await recorded(db, actor, update, (portal) => ({
        action: "portal.update",
        target: portalTarget(portal),
        changes: changesBetween(existing, portal, [...fields]),
      }));
      return toDetail(row);
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError("conflict", SLUG_TAKEN);
      throw error;
    }
  },
);

/** How long a replaced embed secret still verifies tokens, so backends can move to the new one. */
export const EMBED_SECRET_OVERLAP_MS = 24 * 3_600_000;

/**
 * A new embed secret, answered this once and stored sealed; the one it replaces keeps verifying
 * tokens for EMBED_SECRET_OVERLAP_MS.
 */
export const rotateEmbedSecret = guarded(
  { scope: "end_users:write", may: "grant" },
  async function rotateEmbedSecret(
    db: Db,
    actor: Actor,
    input: z.infer<typeof PortalIdInput>,
  ): Promise<{ secret: string }> {
    const existing = await db.portal.findFirst({ where: { id: input.id, organizationId: actor.organizationId } });
    if (!existing) throw new AppError("not_found", "No portal with that id.");
    const secret = randomToken("atrium_embed_");
    const rotate = (tx: Prisma.TransactionClient) =>
      tx.portal.update({
        where: { id: existing.id, organizationId: actor.organizationId },
        data: {
          embedSecret: sealSecret(secret, "secret"),
          embedPreviousSecret: existing.embedSecret,
          embedPreviousSecretUntil: existing.embedSecret ? new Date(Date.now() + EMBED_SECRET_OVERLAP_MS) : null,
        },
      });
    await recorded(db, actor, rotate, (portal) => ({
      action: "portal.embed_secret_rotate",
      target: portalTarget(portal),
      changes: { embedSecret: [existing.embedSecret ? SECRET_CHANGED : null, SECRET_CHANGED] },
    }));
    return { secret };
  },
);

export const getPortal = guarded(
  { scope: "end_users:read" },
  async function getPortal(db: Db, actor: Actor, input: z.infer<typeof PortalIdInput>): Promise<PortalDetail> {
    const row = await db.portal.findFirst({ where: { id: input.id, organizationId: actor.organizationId } });
    if (!row) throw new AppError("not_found", "No portal with that id.");
    return toDetail(row);
  },
);

export const listPortals = guarded(
  { scope: "end_users:read" },
  async function listPortals(db: Db, actor: Actor, input: z.infer<typeof ListPortalsInput>) {
    const page = await oldestFirst(input, (after, window) =>
      db.portal.findMany({
        where: { organizationId: actor.organizationId, ...nameContains(input.q), ...after },
        ...window,
      }),
    );
    return { portals: page.items.map(toPortal), nextCursor: page.nextCursor };
  },
);

/** A portal as an end user's request finds it, with what its sign-in page shows of the organization. */
export type ResolvedPortal = StoredPortal & {
  organization: { name: string; ssoConnection: { displayName: string; issuer: string } | null };
};

/**
 * The portal, its organization's name and its SSO connection in one prepared statement: every
 * portal request (each chat turn and tRPC call) starts with it, where Prisma's include took three.
 */
const RESOLVE_PORTAL_SQL = `
  select p.id, p.organization_id as "organizationId", p.name, p.slug, p.greeting, p.logo_url as "logoUrl",
    p.accent_color as "accentColor", p.featured_app_ids::text[] as "featuredAppIds", p.sign_in as "signIn",
    p.default_language as "defaultLanguage", p.embed_enabled as "embedEnabled",
    p.embed_allowed_origins as "embedAllowedOrigins", p.embed_secret as "embedSecret",
    p.embed_previous_secret as "embedPreviousSecret", p.embed_previous_secret_until as "embedPreviousSecretUntil",
    p.provision_plan_id::text as "provisionPlanId", p.created_at as "createdAt",
    json_build_object('name', o.name, 'ssoConnection', (
      select json_build_object('displayName', c.display_name, 'issuer', c.issuer) from sso_connections c where c.organization_id = o.id
    )) as organization
  from portals p join organizations o on o.id = p.organization_id
  where p.slug = $1 or p.id = $2::uuid
  limit 1`;

const portalNotFound = () => new AppError("not_found", "No portal at this address.");

/** The portal an end user's request names, by id or slug; unknown answers not_found. */
export async function resolvePortal(db: Db, ref: string): Promise<ResolvedPortal> {
  const value = ref.trim().toLowerCase();
  // Neither an id nor a slug (a NUL, a megabyte of text) names no portal: nothing is asked.
  if (!isUuid(value) && !SLUG_PATTERN.test(value)) throw portalNotFound();
  const { rows } = await db.pool.query<ResolvedPortal>({
    name: "atrium_resolve_portal",
    text: RESOLVE_PORTAL_SQL,
    values: [value, isUuid(value) ? value : null],
  });
  if (!rows[0]) throw portalNotFound();
  return rows[0];
}

/** What anyone may see of a portal before signing in. */
export function toPublicPortal(row: ResolvedPortal): PublicPortal {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    greeting: row.greeting,
    logoUrl: row.logoUrl,
    accentColor: row.accentColor,
    organizationName: row.organization.name,
    signIn: row.signIn as PublicPortal["signIn"],
    defaultLanguage: row.defaultLanguage as PublicPortal["defaultLanguage"],
    ssoName:
      row.signIn !== "email_code" && row.organization.ssoConnection
        ? row.organization.ssoConnection.displayName || issuerName(row.organization.ssoConnection.issuer)
        : null,
  };
}

/** A button's name from an issuer URL, or a SAML entity id that need not be one. */
function issuerName(issuer: string): string {
  return URL.canParse(issuer) ? new URL(issuer).hostname || issuer : issuer;
}
