// The console's Security page for owners (issue 48): who has a second factor, how members sign
// in (password, SSO over OpenID Connect or SAML), how long conversations and the audit log are kept, and the latest sign-ins.
// Read-only: every statement names the organization.
import type { Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import type { Role } from "@/schemas/identity/auth";

const RECENT_SIGN_INS = 20;

export interface SecurityOverview {
  requireMfa: boolean;
  passwordSignIn: boolean;
  conversationRetentionDays: number | null;
  auditRetentionDays: number;
  sso: {
    protocol: "oidc" | "saml";
    issuer: string;
    displayName: string;
    domains: string[];
    metadataError: string | null;
  } | null;
  members: {
    id: string;
    email: string;
    role: Role;
    mfaEnrolledAt: string | null;
    recoveryCodesLeft: number;
    lastSignInAt: string | null;
  }[];
  recentSignIns: {
    id: string;
    occurredAt: string;
    email: string;
    outcome: "success" | "failure";
    /** password, password + totp, password + recovery_code, sso */
    method: string;
    ipAddress: string | null;
  }[];
}

/** How a member.sign_in event says the member got in. */
function methodOf(changes: unknown): string {
  const recorded = (changes ?? {}) as { method?: [unknown, unknown]; mfa?: [unknown, unknown] };
  if (recorded.method?.[1] === "sso") return "sso";
  return recorded.mfa?.[1] ? `password + ${String(recorded.mfa[1])}` : "password";
}

export const getSecurityOverview = guarded(
  { may: "owners" },
  async function getSecurityOverview(db: Db, actor: Actor): Promise<SecurityOverview> {
    const organizationId = actor.organizationId;
    const [organization, sso, members, factors, codesLeft, lastSignIns, recent] = await Promise.all([
      db.organization.findUniqueOrThrow({
        where: { id: organizationId },
        select: { requireMfa: true, passwordSignIn: true, conversationRetentionDays: true, auditRetentionDays: true },
      }),
      db.ssoConnection.findUnique({
        where: { organizationId },
        select: { protocol: true, issuer: true, displayName: true, domains: true, samlMetadataError: true },
      }),
      db.member.findMany({
        where: { organizationId, removedAt: null },
        select: { id: true, role: true, user: { select: { email: true } } },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      }),
      db.memberTotp.findMany({
        where: { organizationId, confirmedAt: { not: null } },
        select: { memberId: true, confirmedAt: true },
      }),
      db.mfaRecoveryCode.groupBy({ by: ["memberId"], where: { organizationId, usedAt: null }, _count: true }),
      db.auditEvent.groupBy({
        by: ["targetId"],
        where: { organizationId, action: "member.sign_in", outcome: "success" },
        _max: { occurredAt: true },
      }),
      db.auditEvent.findMany({
        where: { organizationId, action: "member.sign_in" },
        orderBy: [{ occurredAt: "desc" }, { id: "desc" }],
        take: RECENT_SIGN_INS,
        select: { id: true, occurredAt: true, targetLabel: true, outcome: true, changes: true, ipAddress: true },
      }),
    ]);
    const enrolledAt = new Map(factors.map((row) => [row.memberId, row.confirmedAt!.toISOString()]));
    const left = new Map(codesLeft.map((row) => [row.memberId, row._count]));
    const lastSignIn = new Map(lastSignIns.map((row) => [row.targetId, row._max.occurredAt?.toISOString() ?? null]));
    return {
      ...organization,
      sso: sso && {
        protocol: sso.protocol === "saml" ? "saml" : "oidc",
        issuer: sso.issuer,
        displayName: sso.displayName,
        domains: sso.domains,
        metadataError: sso.samlMetadataError,
      },
      members: members.map((member) => ({
        id: member.id,
        email: member.user.email,
        role: member.role,
        mfaEnrolledAt: enrolledAt.get(member.id) ?? null,
        recoveryCodesLeft: enrolledAt.has(member.id) ? (left.get(member.id) ?? 0) : 0,
        lastSignInAt: lastSignIn.get(member.id) ?? null,
      })),
      recentSignIns: recent.map((event) => ({
        id: event.id,
        occurredAt: event.occurredAt.toISOString(),
        email: event.targetLabel,
        outcome: event.outcome === "failure" ? "failure" : "success",
        method: methodOf(event.changes),
        ipAddress: event.ipAddress,
      })),
    };
  },
);
