// What single sign-on does once the identity provider has vouched for an email, over OpenID
// Connect (oidc.ts) and SAML (saml.ts) alike: the member or active end user it names is signed in,
// or a "test connection" sign-in keeps what the provider sent for the admin who ran it.
import { env } from "@/env";
import type { Actor, EndUserActor, MemberActor, RequestOrigin } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import { hashSecret, randomToken } from "@/server/auth/secrets";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { startEndUserSession, type NewEndUserSession } from "../portal/end-user-sessions";
import { recordEvent, type EventInput } from "../org/events";
import { normalizeEmail } from "./members";
import type { NewSession } from "./sessions";

/** Where the console shows a "test connection" sign-in's result. */
export const SSO_TEST_RESULT_PAGE = "/directory?sso_test=1";

export type SsoStart = { organizationId: string } & (
  | { kind: "member" }
  | { kind: "end_user"; portalId: string }
  // The console's "Test connection": the provider's answer is shown to this admin, nobody signs in.
  | { kind: "test"; memberId: string }
);

/** Which protocol the organization's connection speaks, if it has one. */
export async function ssoProtocol(db: Db, organizationId: string): Promise<string | null> {
  const row = await db.ssoConnection.findUnique({ where: { organizationId }, select: { protocol: true } });
  return row?.protocol ?? null;
}

/** The organization whose connection signs in members of this email's domain, if any. */
export async function organizationForMemberEmail(
  db: Db,
  email: string,
): Promise<{ organizationId: string; displayName: string } | null> {
  const domain = normalizeEmail(email).split("@")[1];
  if (!domain) return null;
  const row = await db.ssoConnection.findFirst({
    where: { domains: { has: domain } },
    select: { organizationId: true, displayName: true },
  });
  return row;
}

export type SsoFinish =
  | { kind: "member"; session: NewSession }
  | { kind: "end_user"; session: NewEndUserSession; portalSlug: string }
  | { kind: "test"; ok: boolean };

/** Where a refused callback sends the person back to, when it is known. */
export interface SsoFailure {
  error: AppError;
  portalSlug: string | null;
}

export const SAME_ANSWER = "This account cannot sign in here with single sign-on. Ask your administrator for access.";

/** The sign-in a verified email leads to, for OpenID Connect and SAML alike. */
export async function signInWithEmail(
  db: Db,
  login: { organizationId: string; kind: string; portalId: string | null },
  email: string,
  portal: { slug: string } | null,
  origin: Omit<RequestOrigin, "door"> | undefined,
  fail: (message: string) => AppError,
): Promise<SsoFinish> {
  if (login.kind === "member") {
    const member = await db.member.findFirst({
      where: { organizationId: login.organizationId, removedAt: null, user: { email } },
      select: { id: true, role: true },
    });
    if (!member) throw fail(SAME_ANSWER);
    const actor: MemberActor = {
      kind: "member",
      organizationId: login.organizationId,
      member: { id: member.id, role: member.role, email },
      origin: origin && { ...origin, door: "console" },
    };
    const token = randomToken();
    const expiresAt = new Date(Date.now() + env().SESSION_TTL_HOURS * 3_600_000);
    await db.$transaction([
      db.session.create({ data: { tokenHash: hashSecret(token), memberId: member.id, expiresAt } }),
      recordEvent(db, actor, {
        action: "member.sign_in",
        target: { type: "member", id: member.id, label: email },
        changes: { method: [null, "sso"] },
      }),
    ]);
    return { kind: "member", session: { token, expiresAt } };
  }
  const endUser = await db.endUser.findFirst({
    where: { organizationId: login.organizationId, email, deletedAt: null },
    select: { id: true, email: true, fullName: true, revokedAt: true, suspendedAt: true },
  });
  if (!endUser || !portal) throw fail(SAME_ANSWER);
  const actor: EndUserActor = {
    kind: "end_user",
    organizationId: login.organizationId,
    endUser: { id: endUser.id, email: endUser.email, fullName: endUser.fullName },
    portalId: login.portalId!,
    origin: origin && { ...origin, door: "portal" },
  };
  const event: EventInput = {
    action: "end_user.sign_in",
    target: { type: "end_user", id: endUser.id, label: endUser.email },
    changes: { method: [null, "sso"] },
  };
  if (endUser.revokedAt || endUser.suspendedAt) {
    // A known person refused (revoked or suspended): logged, with the same answer as a stranger.
    await recordEvent(db, actor, { ...event, outcome: "failure" });
    throw fail(SAME_ANSWER);
  }
  const session = await startEndUserSession(
    db,
    { id: endUser.id, organizationId: login.organizationId },
    { authMethod: "sso", signInEvent: recordEvent(db, actor, event) },
  );
  return { kind: "end_user", session, portalSlug: portal.slug };
}

/** Keeps what the identity provider sent to a "test connection" sign-in, for the admin who ran it. */
export async function recordSsoTest(
  db: Db,
  login: { organizationId: string; memberId: string | null },
  protocol: "oidc" | "saml",
  ok: boolean,
  message: string,
  sent: object,
): Promise<void> {
  if (!login.memberId) return;
  await db.ssoTest.create({
    data: {
      organizationId: login.organizationId,
      memberId: login.memberId,
      protocol,
      ok,
      message: message.slice(0, 1_000),
      sent: JSON.parse(JSON.stringify(sent)),
    },
  });
}

export interface SsoTestView {
  protocol: string;
  ok: boolean;
  message: string;
  /** OpenID Connect: the claims; SAML: what the response held (services/identity/saml-sign-in.ts, SamlSent). */
  sent: Record<string, unknown>;
  createdAt: string;
}

/** The last test this admin ran, within the hour. */
export const lastSsoTest = guarded(
  { may: "settings" },
  async function lastSsoTest(db: Db, actor: Actor): Promise<SsoTestView | null> {
    if (actor.kind !== "member") return null;
    const row = await db.ssoTest.findFirst({
      where: {
        organizationId: actor.organizationId,
        memberId: actor.member.id,
        createdAt: { gt: new Date(Date.now() - 3_600_000) },
      },
      orderBy: { createdAt: "desc" },
    });
    return row
      ? {
          protocol: row.protocol,
          ok: row.ok,
          message: row.message,
          sent: row.sent as Record<string, unknown>,
          createdAt: row.createdAt.toISOString(),
        }
      : null;
  },
);

/** The console's "Test connection" sign-in, for either protocol: where to send the admin's browser. */
export function testStart(actor: Actor): SsoStart {
  if (actor.kind !== "member") throw new AppError("forbidden_role", "Only a signed-in admin can test single sign-on.");
  return { organizationId: actor.organizationId, kind: "test", memberId: actor.member.id };
}
