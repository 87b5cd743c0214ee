// An end user's own export from the portal (the contract's "Data rights"), delivered as they
// choose: a download now, or a link mailed to their address.
//
// The mailed link is a 256-bit random token, stored as SHA-256, valid 24 hours and used once. It
// is not a credential on its own: the download also needs the portal session of the end user it
// was sent to, in the portal it was asked from, so a forwarded or intercepted link, or a mail
// scanner following it, reads nothing and does not use it up. Its absolute URL starts at
// PUBLIC_ORIGIN (configuration), never at a request header, and the token rides in the URL's
// fragment, which browsers send to no server.
import { createHash, randomBytes } from "node:crypto";
import { publicOrigin } from "@/env";
import { createPortalI18n } from "@/components/portal/i18n";
import { pickLanguage } from "@/components/portal/i18n/languages";
import type { PortalLanguage } from "@/schemas/portal/portal";
import type { EndUserActor } from "@/server/auth/actor";
import { hitRateLimit } from "@/server/auth/rate-limit";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { streamOwnExport } from "../provisioning/end-user-export";
import { recordEvent } from "../org/events";
import { deliverMail } from "../org/mail";
import { portalPath, type ResolvedPortal } from "./portals";

export const EXPORT_LINK_TTL_HOURS = 24;
/** Export links mailed per end user in any hour: enough to retry, too few to flood their inbox. */
export const EXPORT_LINKS_PER_HOUR = 3;
/** Exports per end user per minute, by download or link: each one reads their whole history. */
export const EXPORTS_PER_MINUTE = 5;
const HOUR_MS = 3_600_000;

function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** The page the mailed link opens: the portal's conversations, the token in the fragment. */
export function exportLinkUrl(portalSlug: string, token: string): string {
  return `${publicOrigin()}${portalPath(portalSlug)}/conversations#export=${token}`;
}

/**
 * Mails the signed-in end user a link to their export, in `language` (the asking page's; the
 * portal's default otherwise). Refused with `rate_limited` past EXPORT_LINKS_PER_HOUR.
 */
export async function mailExportLink(
  db: Db,
  actor: EndUserActor,
  input: { portal: ResolvedPortal; language?: PortalLanguage },
): Promise<{ sent: true; expiresInSeconds: number }> {
  const { portal } = input;
  const now = new Date();
  const token = randomBytes(32).toString("base64url");
  const expiresAt = new Date(now.getTime() + EXPORT_LINK_TTL_HOURS * HOUR_MS);
  await db.$transaction(async (tx) => {
    // One at a time per end user, so parallel requests cannot each see room under the cap.
    await tx.$executeRaw`select pg_advisory_xact_lock(hashtextextended(${`export-link:${actor.endUser.id}`}, 0))`;
    const recent = await tx.endUserExportLink.findMany({
      where: { endUserId: actor.endUser.id, createdAt: { gt: new Date(now.getTime() - HOUR_MS) } },
      select: { createdAt: true },
      orderBy: { createdAt: "asc" },
    });
    // Their links that expired over a week ago go (until then, a late click still hears "expired").
    await tx.endUserExportLink.deleteMany({
      where: { endUserId: actor.endUser.id, expiresAt: { lt: new Date(now.getTime() - 7 * 24 * HOUR_MS) } },
    });
    if (recent.length >= EXPORT_LINKS_PER_HOUR) {
      const seconds = Math.max(1, Math.ceil((recent[0]!.createdAt.getTime() + HOUR_MS - now.getTime()) / 1000));
      throw new AppError(
        "rate_limited",
        `At most ${EXPORT_LINKS_PER_HOUR} links an hour. Try again in ${seconds} s.`,
        { retryAfterSeconds: seconds },
        { headers: { "Retry-After": String(seconds) } },
      );
    }
    await tx.endUserExportLink.create({
      data: {
        tokenHash: hashToken(token),
        organizationId: actor.organizationId,
        endUserId: actor.endUser.id,
        portalId: portal.id,
        expiresAt,
        createdAt: now,
      },
    });
    await recordEvent(tx, actor, {
      action: "end_user.export_mail",
      target: { type: "end_user", id: actor.endUser.id, label: actor.endUser.email },
      changes: {},
    });
  });
  const t = createPortalI18n(input.language ?? pickLanguage([], portal.defaultLanguage)).t;
  await deliverMail(db, actor.organizationId, {
    to: actor.endUser.email,
    subject: t("exportMail.subject", { portal: portal.name }),
    text: [
      t("exportMail.ready", { portal: portal.name }),
      "",
      exportLinkUrl(portal.slug, token),
      "",
      t("exportMail.expires", { hours: EXPORT_LINK_TTL_HOURS }),
      "",
      t("exportMail.notYou"),
    ].join("\n"),
  });
  return { sent: true, expiresInSeconds: EXPORT_LINK_TTL_HOURS * 3600 };
}

/**
 * Uses a mailed link up, for the signed-in end user it was sent to in this portal: one UPDATE,
 * so of two downloads racing with one link only one gets it. A refusal leaves the link as it was.
 */
async function spendExportLink(db: Db, actor: EndUserActor, portal: ResolvedPortal, token: string): Promise<void> {
  const tokenHash = hashToken(token);
  const used = await db.$executeRaw`update end_user_export_links set used_at = now()
    where token_hash = ${tokenHash} and organization_id = ${actor.organizationId}::uuid and portal_id = ${portal.id}::uuid
      and end_user_id = ${actor.endUser.id}::uuid and used_at is null and expires_at > now()`;
  if (used === 1) return;
  const link = await db.endUserExportLink.findFirst({
    where: { tokenHash, organizationId: actor.organizationId, portalId: portal.id },
  });
  if (!link) throw new AppError("not_found", "No such export link here.");
  if (link.endUserId !== actor.endUser.id)
    throw new AppError(
      "export_link_other_user",
      "This link was sent to someone else. Sign in as the person it was sent to, or ask for your own.",
    );
  const reason = link.usedAt ? "used" : "expired";
  throw new AppError(
    "export_link_unavailable",
    reason === "used"
      ? "This link was used already. Ask for a new one, or download your data."
      : "This link has expired. Ask for a new one, or download your data.",
    { reason },
  );
}

/**
 * The signed-in end user's export as JSON text a page at a time, downloaded now (no link) or from
 * a mailed link (which is used up first). Throttled per end user; every export is audited.
 */
export async function openOwnExport(
  db: Db,
  actor: EndUserActor,
  input: { portal: ResolvedPortal; link?: string },
): Promise<AsyncGenerator<string>> {
  const limit = await hitRateLimit(db, `portal-export:${actor.endUser.id}`, EXPORTS_PER_MINUTE);
  if (!limit.allowed)
    throw new AppError(
      "rate_limited",
      `Too many exports. Try again in ${limit.retryAfterSeconds} s.`,
      { retryAfterSeconds: limit.retryAfterSeconds },
      { headers: { "Retry-After": String(limit.retryAfterSeconds) } },
    );
  if (input.link !== undefined) await spendExportLink(db, actor, input.portal, input.link);
  const document = await streamOwnExport(db, actor);
  await recordEvent(db, actor, {
    action: "end_user.export",
    target: { type: "end_user", id: actor.endUser.id, label: actor.endUser.email },
    changes: { delivery: [null, input.link === undefined ? "download" : "mail"] },
  });
  return document;
}
