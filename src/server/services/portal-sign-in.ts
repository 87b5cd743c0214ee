// End-user sign-in by email one-time code:
// 6 digits, valid 10 minutes, single use, void after 5 wrong tries, stored hashed. Requests are
// throttled per client address and per email *from that address*, so nobody can lock an end user
// out of their own address by hammering their email elsewhere; the 5-tries rule bounds guessing.
// An email that is not an active end user gets the same answer and no code (no account oracle).
import { createHash, randomInt, randomUUID } from "node:crypto";
import { hitRateLimit } from "@/server/auth/rate-limit";
import { createSignInThrottle, tooMany } from "@/server/auth/sign-in-throttle";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { startEndUserSession, type NewEndUserSession } from "./end-user-sessions";
import { deliverMail } from "./mail";
import { ACTIVE_END_USER } from "./portal-access";
import { portalPath, type ResolvedPortal } from "./portals";

export const CODE_TTL_SECONDS = 600;
export const MAX_WRONG_TRIES = 5;
const INVALID_CODE = "That code is wrong or has expired. Request a new one.";

/** Code requests per minute (each may send a mail): per address (room for an office behind one address), and per email from one address. */
export const CODE_REQUEST_LIMITS = { perAddress: 60, perEmailFromAddress: 5 } as const;

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
}

function hashCode(codeId: string, code: string): string {
  return createHash("sha256").update(`${codeId}:${code}`).digest("hex");
}

async function throttleCodeRequests(db: Db, email: string, clientAddress: string): Promise<void> {
  const buckets = [
    { bucket: `portal-code-request:address:${clientAddress}`, limit: CODE_REQUEST_LIMITS.perAddress },
    { bucket: `portal-code-request:email:${email}:address:${clientAddress}`, limit: CODE_REQUEST_LIMITS.perEmailFromAddress },
  ];
  for (const { bucket, limit } of buckets) {
    const result = await hitRateLimit(db, bucket, limit);
    if (!result.allowed) throw tooMany(result.retryAfterSeconds);
  }
}

/** An active end user of the portal's organization with this email, or null. */
async function activeEndUser(db: Db, portal: ResolvedPortal, email: string) {
  return db.endUser.findFirst({
    where: { organizationId: portal.organizationId, email, ...ACTIVE_END_USER },
    select: { id: true, email: true, fullName: true, organizationId: true },
  });
}

/** A new code for the end user, stored hashed, and mailed to them. */
async function sendCode(db: Db, portal: ResolvedPortal, endUser: { id: string; email: string }, origin: string | undefined): Promise<void> {
  const codeId = randomUUID();
  const code = randomInt(0, 1_000_000).toString().padStart(6, "0");
  await db.endUserSignInCode.create({
    data: {
      id: codeId,
      organizationId: portal.organizationId,
      endUserId: endUser.id,
      portalId: portal.id,
      codeHash: hashCode(codeId, code),
      expiresAt: new Date(Date.now() + CODE_TTL_SECONDS * 1000),
    },
  });
  const link = `${origin ?? ""}${portalPath(portal.slug)}`;
  await deliverMail(db, portal.organizationId, {
    to: endUser.email,
    subject: `Your sign-in code for ${portal.name}: ${code}`,
    text: [
      `Your code to sign in to ${portal.name} is ${code}.`,
      "",
      `It works once, for 10 minutes. Sign in at ${link}`,
      "",
      "If you did not ask for it, ignore this message.",
    ].join("\n"),
  });
}

/**
 * Sends a code to the email if it is an active end user. The answer is the same either way and
 * does not wait for the code to be stored and mailed, so its timing tells nothing either.
 */
export async function requestSignInCode(db: Db, request: SignInRequest): Promise<{ sent: true; expiresInSeconds: number }> {
  const { portal, email, clientAddress } = request;
  if (portal.signIn === "sso") throw new AppError("invalid_request", "This portal signs in with single sign-on only.");
  await throttleCodeRequests(db, email, clientAddress);
  const endUser = await activeEndUser(db, portal, email);
  if (endUser) {
    sendCode(db, portal, endUser, request.origin).catch((error: unknown) =>
      console.error(`The sign-in code for ${endUser.email} could not be sent:`, error instanceof Error ? error.message : error),
    );
  }
  return { sent: true, expiresInSeconds: CODE_TTL_SECONDS };
}

/**
 * Signs the end user in with a code. A wrong code counts as a wrong try against every live code
 * of theirs (so asking for several codes gives no more guesses); the 5th wrong try voids them.
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
  const live = await db.endUserSignInCode.findMany({
    where: { endUserId: endUser.id, organizationId: portal.organizationId, usedAt: null, wrongTries: { lt: MAX_WRONG_TRIES }, expiresAt: { gt: new Date() } },
    select: { id: true, codeHash: true },
  });
  const match = live.find((candidate) => candidate.codeHash === hashCode(candidate.id, request.code));
  if (!match) {
    if (live.length) await db.endUserSignInCode.updateMany({ where: { id: { in: live.map((c) => c.id) } }, data: { wrongTries: { increment: 1 } } });
    throw new AppError("invalid_code", INVALID_CODE);
  }
  // Single use even under concurrent verifies: only one request can mark it used.
  const claimed = await db.endUserSignInCode.updateMany({
    where: { id: match.id, usedAt: null, wrongTries: { lt: MAX_WRONG_TRIES }, expiresAt: { gt: new Date() } },
    data: { usedAt: new Date() },
  });
  if (claimed.count !== 1) throw new AppError("invalid_code", INVALID_CODE);
  await attempt.succeeded();
  const session = await startEndUserSession(db, endUser);
  return { endUser: { id: endUser.id, email: endUser.email, fullName: endUser.fullName }, session };
}
