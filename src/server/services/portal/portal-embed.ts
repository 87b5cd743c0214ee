// The embedded chat's sign-in: the organization's backend signs a short-lived JWT (HS256 with the
// portal's embed secret, `aud` the portal id, `sub` the visitor's email, `exp` at most an hour
// after `iat`), the page hands it to the embed frame, and the frame exchanges it here for an
// end-user session that ends when the token does. Every refusal is recorded; nothing is charged.
import { errors as joseErrors, jwtVerify, type JWTPayload } from "jose";
import { z } from "zod";
import type { EndUserActor, RequestOrigin } from "@/server/auth/actor";
import { hitRateLimit } from "@/server/auth/rate-limit";
import { tooMany } from "@/server/auth/sign-in-throttle";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { openSecret } from "@/server/secret-box";
import { startEndUserSession, type NewEndUserSession } from "./end-user-sessions";
import { provisionEndUser } from "../provisioning/end-users";
import { recordEvent, type EventActor } from "../org/events";
import { normalizeEmail } from "../identity/members";
import { ACTIVE_END_USER } from "./portal-access";
import { resolvePortal, type ResolvedPortal } from "./portals";

/** The longest an embed token may live: `exp` at most this many seconds after `iat`. */
export const MAX_EMBED_TOKEN_SECONDS = 3600;
/** Clocks of the organization's backend and ours may differ this much. */
const CLOCK_TOLERANCE_SECONDS = 30;

const REFUSED_TOKEN = "This sign-in link for the chat is not valid; reload the page to get a new one.";

/** Why an exchange was refused, as the audit event records it. */
type Refusal =
  | "embed_disabled"
  | "origin_not_allowed"
  | "no_secret"
  | "bad_token"
  | "wrong_audience"
  | "expired"
  | "lifetime_too_long"
  | "unknown_end_user"
  | "inactive_end_user";

/** Exchanges a minute from one client address: room for an office behind one address, not for flooding the audit log. */
export const EMBED_EXCHANGES_PER_MINUTE = 60;

export interface EmbedExchange {
  portal: ResolvedPortal;
  /** The client's address as the door sees it, for the throttle. */
  clientAddress: string;
  token: string;
  /** The embedding page's origin: the request's Origin, or the frame's parent as it saw it. */
  origin: string | null;
  requestOrigin?: RequestOrigin;
}

export interface EmbedSession {
  session: NewEndUserSession;
  endUser: { id: string; email: string; fullName: string };
}

/** Whether `origin` may embed the portal's chat: embedding on and the origin listed. */
export function embedAllows(
  portal: Pick<ResolvedPortal, "embedEnabled" | "embedAllowedOrigins">,
  origin: string | null,
) {
  return portal.embedEnabled && origin !== null && (portal.embedAllowedOrigins ?? []).includes(origin);
}

/** The secrets a token may be signed with now: the current one, and the previous one during its overlap. */
function verifyingSecrets(portal: ResolvedPortal, now: Date): Uint8Array[] {
  const sealed = [portal.embedSecret];
  if (portal.embedPreviousSecret && portal.embedPreviousSecretUntil && portal.embedPreviousSecretUntil > now)
    sealed.push(portal.embedPreviousSecret);
  return sealed
    .filter((value): value is string => value !== null)
    .map((value) => new TextEncoder().encode(openSecret(value)));
}

/** The token's claims, verified with one of the portal's secrets; the refusal otherwise. */
async function verifiedClaims(portal: ResolvedPortal, token: string, now: Date): Promise<JWTPayload | Refusal> {
  const secrets = verifyingSecrets(portal, now);
  if (secrets.length === 0) return "no_secret";
  for (const secret of secrets) {
    try {
      const { payload } = await jwtVerify(token, secret, {
        algorithms: ["HS256"],
        audience: portal.id,
        requiredClaims: ["sub", "iat", "exp"],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        currentDate: now,
      });
      return payload;
    } catch (error) {
      // A signature of another secret: the previous one may still verify it.
      if (error instanceof joseErrors.JWSSignatureVerificationFailed) continue;
      if (error instanceof joseErrors.JWTExpired) return "expired";
      if (error instanceof joseErrors.JWTClaimValidationFailed && error.claim === "aud") return "wrong_audience";
      // Anything else (alg none, another algorithm, malformed, a claim missing) is no token.
      return "bad_token";
    }
  }
  return "bad_token";
}

async function refuse(db: Db, exchange: EmbedExchange, reason: Refusal, subject?: string): Promise<never> {
  const actor: EventActor = {
    kind: "system",
    organizationId: exchange.portal.organizationId,
    origin: exchange.requestOrigin,
  };
  await recordEvent(db, actor, {
    action: "portal.embed_sign_in",
    target: { type: "portal", id: exchange.portal.id, label: exchange.portal.name },
    changes: {
      reason: [null, reason],
      origin: [null, exchange.origin],
      ...(subject ? { email: [null, subject] } : {}),
    },
    outcome: "failure",
  });
  if (reason === "embed_disabled")
    throw new AppError("origin_not_allowed", "This portal's chat cannot be embedded: embedding is turned off.");
  if (reason === "origin_not_allowed")
    throw new AppError("origin_not_allowed", "This page's origin may not embed this portal's chat.");
  throw new AppError("invalid_embed_token", REFUSED_TOKEN, { reason });
}

/** The end user the email names: active, provisioned on the portal's plan when unknown, or null. */
async function embeddedEndUser(
  db: Db,
  portal: ResolvedPortal,
  email: string,
  name: string | undefined,
  requestOrigin: RequestOrigin | undefined,
) {
  const select = { id: true, email: true, fullName: true, organizationId: true } as const;
  const known = await db.endUser.findFirst({
    where: { organizationId: portal.organizationId, email },
    select: { ...select, ...ACTIVE_END_USER_FIELDS },
  });
  if (known) return isActive(known) ? known : "inactive_end_user";
  if (!portal.provisionPlanId) return "unknown_end_user";
  await provisionEndUser(
    db,
    { kind: "operator", organizationId: portal.organizationId, origin: requestOrigin },
    { email, fullName: name, tierPlanIds: [portal.provisionPlanId] },
  );
  const created = await db.endUser.findFirst({
    where: { organizationId: portal.organizationId, email, ...ACTIVE_END_USER },
    select,
  });
  return created ?? "unknown_end_user";
}

const ACTIVE_END_USER_FIELDS = { revokedAt: true, suspendedAt: true, deletedAt: true } as const;

function isActive(user: { revokedAt: Date | null; suspendedAt: Date | null; deletedAt: Date | null }): boolean {
  return user.revokedAt === null && user.suspendedAt === null && user.deletedAt === null;
}

const Subject = z.email().max(320);
const DisplayName = z.string().trim().min(1).max(200);

/**
 * Exchanges an embed token for an end-user session of the portal's organization. Refusals: a
 * disabled embed or an origin not allowed → 403 `origin_not_allowed`; a token that is forged
 * (alg none, another algorithm, a wrong secret), for another portal, expired, living longer than
 * an hour, or naming no active end user (and the portal provisions none) → 401 `invalid_embed_token`;
 * more than EMBED_EXCHANGES_PER_MINUTE from one address → 429 `rate_limited`, before anything is recorded.
 */
export async function exchangeEmbedToken(db: Db, exchange: EmbedExchange): Promise<EmbedSession> {
  const { portal } = exchange;
  const admitted = await hitRateLimit(
    db,
    `embed-exchange:address:${exchange.clientAddress}`,
    EMBED_EXCHANGES_PER_MINUTE,
  );
  if (!admitted.allowed) throw tooMany(admitted.retryAfterSeconds);
  if (!portal.embedEnabled) return refuse(db, exchange, "embed_disabled");
  if (!embedAllows(portal, exchange.origin)) return refuse(db, exchange, "origin_not_allowed");
  const now = new Date();
  const claims = await verifiedClaims(portal, exchange.token, now);
  if (typeof claims === "string") return refuse(db, exchange, claims);
  if (claims.exp! - claims.iat! > MAX_EMBED_TOKEN_SECONDS) return refuse(db, exchange, "lifetime_too_long");
  const subject = Subject.safeParse(claims.sub);
  if (!subject.success) return refuse(db, exchange, "bad_token");
  const email = normalizeEmail(subject.data);
  const name = DisplayName.safeParse(claims.name);
  const endUser = await embeddedEndUser(
    db,
    portal,
    email,
    name.success ? name.data : undefined,
    exchange.requestOrigin,
  );
  if (typeof endUser === "string") return refuse(db, exchange, endUser, email);
  const actor: EndUserActor = {
    kind: "end_user",
    organizationId: portal.organizationId,
    endUser: { id: endUser.id, email: endUser.email, fullName: endUser.fullName },
    portalId: portal.id,
    origin: exchange.requestOrigin,
  };
  const session = await startEndUserSession(db, endUser, {
    authMethod: "embed",
    endsBy: new Date(claims.exp! * 1000),
    signInEvent: recordEvent(db, actor, {
      action: "portal.embed_sign_in",
      target: { type: "end_user", id: endUser.id, label: endUser.email },
      changes: { origin: [null, exchange.origin] },
    }),
  });
  return { session, endUser: actor.endUser };
}

export interface EmbedLook {
  /** The portal's accent colour, or null for Atrium's default. */
  accentColor: string | null;
  /** The portal's name, for the launcher's accessible name. */
  name: string;
}

/**
 * The portal's look for the launcher on an embedding page, before any sign-in: what the portal's
 * own sign-in page shows anyone, and only to an origin that may embed it.
 */
export async function embedLook(db: Db, portalRef: string, origin: string | null): Promise<EmbedLook> {
  const portal = await resolvePortal(db, portalRef);
  if (!portal.embedEnabled)
    throw new AppError("origin_not_allowed", "This portal's chat cannot be embedded: embedding is turned off.");
  if (!embedAllows(portal, origin))
    throw new AppError("origin_not_allowed", "This page's origin may not embed this portal's chat.");
  return { accentColor: portal.accentColor, name: portal.name };
}

/** The origins that may frame the portal's embed page: none when embedding is off or the portal unknown. */
export async function embedFrameAncestors(db: Db, portalRef: string): Promise<string[]> {
  const portal = await resolvePortal(db, portalRef).catch((error: unknown) => {
    if (error instanceof AppError && error.code === "not_found") return null;
    throw error;
  });
  return portal?.embedEnabled ? (portal.embedAllowedOrigins ?? []) : [];
}
