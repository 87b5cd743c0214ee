// End-user sign-in by email one-time code:
// 6 digits, valid 10 minutes, single use, void after 5 wrong tries, stored hashed. Guessing is
// bounded whatever the number of addresses an attacker holds:
// - one live code per end user: a new request voids the one before, and a guess is compared
//   with the live code only;
// - each guess takes one of the code's 5 tries in a single UPDATE before it is compared, so
//   parallel guesses cannot slip past the count;
// - at most 5 codes (and so 5 mails) an hour per organization and email, whatever the address,
//   counted alike for emails that are no end user (429 `rate_limited` with Retry-After): at most
//   25 guesses an hour, and the real person gets a fresh code within the hour.
// Requests and guesses are also throttled per client address.
// An email that is not an active end user gets the same answer and no code (no account oracle).
import { createHash, randomInt, randomUUID } from "node:crypto";
import { hitRateLimit } from "@/server/auth/rate-limit";
import { createSignInThrottle, tooMany } from "@/server/auth/sign-in-throttle";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import type { EndUserActor, RequestOrigin } from "@/server/auth/actor";
import { logger } from "@/server/observability/log";
import { createPortalI18n } from "@/components/portal/i18n";
import { pickLanguage } from "@/components/portal/i18n/languages";
import type { PortalLanguage } from "@/schemas/portal/portal";
import { startEndUserSession, type NewEndUserSession } from "./end-user-sessions";
import { recordEvent, type EventInput } from "../org/events";
import { deliverMail } from "../org/mail";
import { ACTIVE_END_USER } from "./portal-access";
import { portalPath, type ResolvedPortal } from "./portals";

export const CODE_TTL_SECONDS = 600;
export const MAX_WRONG_TRIES = 5;
const INVALID_CODE = "That code is wrong or has expired. Request a new one.";

/** Code requests per minute from one address (room for an office behind one address). */
export const CODE_REQUEST_LIMITS = { perAddress: 60 } as const;
/** Codes sent per organization and email in any hour, whatever the address. */
export const CODE_REQUESTS_PER_HOUR = 5;
const HOUR_MS = 3_600_000;

/** Code guesses, per minute: the same throttle as member sign-in, in buckets of its own. */
export const CODE_GUESS_LIMITS = { perAccountAndAddress: 10, perAddress: 30, perAccount: 50 } as const;
const codeGuesses = createSignInThrottle("portal-code", CODE_GUESS_LIMITS);

export interface SignInRequest {
  portal: ResolvedPortal;
  email: string;
  /** The client's address as the door sees it. */
  clientAddress: string;
  /** The origin the portal is served from, for the link in the mail (e.g. https://atrium.example). */
  origin?: string;
  /** Where the request came from, for the audit log. */
  requestOrigin?: RequestOrigin;
  /** The language to write the mail in (the asking page's); the portal's default otherwise. */
  language?: PortalLanguage;
}

function hashCode(codeId: string, code: string): string {
  return createHash("sha256").update(`${codeId}:${code}`).digest("hex");
}

async function throttleCodeRequests(
  db: Db,
  portal: ResolvedPortal,
  email: string,
  clientAddress: string,
): Promise<void> {
  const fromAddress = await hitRateLimit(
    db,
    `portal-code-request:address:${clientAddress}`,
    CODE_REQUEST_LIMITS.perAddress,
  );
  if (!fromAddress.allowed) throw tooMany(fromAddress.retryAfterSeconds);
  const retryAfterSeconds = await countHourlyCodeRequest(db, portal.organizationId, email);
  if (retryAfterSeconds !== undefined) throw tooMany(retryAfterSeconds);
}

/**
 * Records a code request for the email unless it already had its hourly share; then the whole
 * seconds until the oldest of those is an hour old. One upsert: parallel requests for one email
 * queue on its row, and each sees the times the one before it wrote.
 */
async function countHourlyCodeRequest(db: Db, organizationId: string, email: string): Promise<number | undefined> {
  const now = new Date();
  const hourAgo = new Date(now.getTime() - HOUR_MS);
  sweepOldCodeRequests(db, hourAgo);
  const recorded = await db.$executeRaw`
    insert into portal_code_requests as r (organization_id, email, requested_at, last_requested_at)
    values (${organizationId}::uuid, ${email}, array[${now}::timestamptz], ${now})
    on conflict (organization_id, email) do update
      set requested_at = array(select t from unnest(r.requested_at) t where t > ${hourAgo} order by t) || ${now}::timestamptz,
        last_requested_at = ${now}
      where (select count(*) from unnest(r.requested_at) t where t > ${hourAgo}) < ${CODE_REQUESTS_PER_HOUR}`;
  if (recorded === 1) return undefined;
  const [oldest] = await db.$queryRaw<{ at: Date }[]>`
    select min(t) as at from portal_code_requests r, unnest(r.requested_at) t
    where r.organization_id = ${organizationId}::uuid and r.email = ${email} and t > ${hourAgo}`;
  // A parallel request may have read the clock a moment after this one and written first.
  const oldestAt = Math.min(oldest?.at?.getTime() ?? now.getTime(), now.getTime());
  return Math.max(1, Math.ceil((oldestAt + HOUR_MS - now.getTime()) / 1000));
}

const lastSweep = new WeakMap<Db, number>();

/** At most once a minute per process: requests older than an hour no longer count. */
function sweepOldCodeRequests(db: Db, hourAgo: Date): void {
  const now = Date.now();
  if (now - (lastSweep.get(db) ?? 0) < 60_000) return;
  lastSweep.set(db, now);
  db.portalCodeRequest
    .deleteMany({ where: { lastRequestedAt: { lte: hourAgo } } })
    .catch((error: unknown) => logger().error({ err: error }, "Sweeping old portal code requests failed"));
}

/** An active end user of the portal's organization with this email, or null. */
async function activeEndUser(db: Db, portal: ResolvedPortal, email: string) {
  return db.endUser.findFirst({
    where: { organizationId: portal.organizationId, email, ...ACTIVE_END_USER },
    select: { id: true, email: true, fullName: true, organizationId: true },
  });
}

/** A new code for the end user, stored hashed, and mailed to them. */
async function sendCode(
  db: Db,
  portal: ResolvedPortal,
  endUser: { id: string; email: string },
  origin: string | undefined,
  language: PortalLanguage,
): Promise<void> {
  const codeId = randomUUID();
  const code = randomInt(0, 1_000_000).toString().padStart(6, "0");
  const now = new Date();
  // The new code replaces any live one; codes for one end user are written one at a time, so
  // parallel requests leave one live code too.
  await db.$transaction(async (tx) => {
    await tx.$executeRaw`select pg_advisory_xact_lock(hashtextextended(${`portal-code:${endUser.id}`}, 0))`;
    await tx.endUserSignInCode.updateMany({
      where: { endUserId: endUser.id, organizationId: portal.organizationId, usedAt: null, expiresAt: { gt: now } },
      data: { expiresAt: now },
    });
    await tx.endUserSignInCode.create({
      data: {
        id: codeId,
        organizationId: portal.organizationId,
        endUserId: endUser.id,
        portalId: portal.id,
        codeHash: hashCode(codeId, code),
        createdAt: now,
        expiresAt: new Date(now.getTime() + CODE_TTL_SECONDS * 1000),
      },
    });
  });
  const link = `${origin ?? ""}${portalPath(portal.slug)}`;
  const t = createPortalI18n(language).t;
  await deliverMail(db, portal.organizationId, {
    to: endUser.email,
    subject: t("mail.subject", { portal: portal.name, code }),
    text: [
      t("mail.code", { portal: portal.name, code }),
      "",
      t("mail.expires", { minutes: CODE_TTL_SECONDS / 60, link }),
      "",
      t("mail.notYou"),
    ].join("\n"),
  });
}

/**
 * Sends a code to the email if it is an active end user. The answer is the same either way and
 * does not wait for the code to be stored and mailed, so its timing tells nothing either.
 */
export async function requestSignInCode(
  db: Db,
  request: SignInRequest,
): Promise<{ sent: true; expiresInSeconds: number }> {
  const { portal, email, clientAddress } = request;
  if (portal.signIn === "sso") throw new AppError("invalid_request", "This portal signs in with single sign-on only.");
  await throttleCodeRequests(db, portal, email, clientAddress);
  const endUser = await activeEndUser(db, portal, email);
  if (endUser) {
    const language = request.language ?? pickLanguage([], portal.defaultLanguage);
    sendCode(db, portal, endUser, request.origin, language).catch((error: unknown) =>
      logger().error(
        { err: error, email: endUser.email, portal: portal.slug },
        "A portal sign-in code could not be sent",
      ),
    );
  }
  return { sent: true, expiresInSeconds: CODE_TTL_SECONDS };
}

/**
 * Signs the end user in with a code. The guess takes one of the live code's tries first (one
 * UPDATE, so parallel guesses queue on the row and never count past 5), then is compared; the
 * right code gives its try back and is marked used, once.
 */
export async function verifySignInCode(
  db: Db,
  request: SignInRequest & { code: string },
): Promise<{ endUser: { id: string; email: string; fullName: string }; session: NewEndUserSession }> {
  const { portal, email, clientAddress } = request;
  if (portal.signIn === "sso") throw new AppError("invalid_request", "This portal signs in with single sign-on only.");
  const attempt = await codeGuesses.admit(db, email, clientAddress);
  const endUser = await activeEndUser(db, portal, email);
  if (!endUser) throw new AppError("invalid_code", INVALID_CODE);
  const now = new Date();
  const [tried] = await db.$queryRaw<{ id: string; code_hash: string }[]>`
    update end_user_sign_in_codes set wrong_tries = wrong_tries + 1
    where id = (
        select id from end_user_sign_in_codes
        where end_user_id = ${endUser.id}::uuid and organization_id = ${portal.organizationId}::uuid
          and used_at is null and expires_at > ${now}
        order by created_at desc, id desc limit 1
      )
      and used_at is null and wrong_tries < ${MAX_WRONG_TRIES} and expires_at > ${now}
    returning id, code_hash`;
  const actor: EndUserActor = {
    kind: "end_user",
    organizationId: portal.organizationId,
    endUser,
    portalId: portal.id,
    origin: request.requestOrigin,
  };
  const event: EventInput = {
    action: "end_user.sign_in",
    target: { type: "end_user", id: endUser.id, label: endUser.email },
  };
  if (!tried || tried.code_hash !== hashCode(tried.id, request.code)) {
    await recordEvent(db, actor, { ...event, outcome: "failure" });
    throw new AppError("invalid_code", INVALID_CODE);
  }
  // Single use even under concurrent verifies: only one request can mark it used.
  const claimed = await db.endUserSignInCode.updateMany({
    where: { id: tried.id, organizationId: actor.organizationId, usedAt: null },
    data: { usedAt: now, wrongTries: { decrement: 1 } },
  });
  if (claimed.count !== 1) throw new AppError("invalid_code", INVALID_CODE);
  await attempt.succeeded();
  const session = await startEndUserSession(db, endUser, { signInEvent: recordEvent(db, actor, event) });
  return { endUser: { id: endUser.id, email: endUser.email, fullName: endUser.fullName }, session };
}
