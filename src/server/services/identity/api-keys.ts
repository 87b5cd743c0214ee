import { SCIM_SCOPE, SCOPES, type Scope } from "@/schemas/identity/auth";
import type { ApiKey, ApiKeyIdInput, CreateApiKeyInput } from "@/schemas/identity/api-key";
import type { Actor } from "@/server/auth/actor";
import { authorize } from "@/server/auth/authorize";
import { guarded } from "@/server/auth/guarded";
import { hashSecret, randomToken } from "@/server/auth/secrets";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { recorded } from "../org/events";

const SECRET_PREFIX = { organization: "sk_org_", personal: "sk_mem_" } as const;
const SHOWN_PREFIX_LENGTH = 12;

type KeyRow = {
  id: string;
  name: string;
  kind: ApiKey["kind"];
  prefix: string;
  scopes: string[];
  memberId: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  member: { user: { email: string } } | null;
};

const keyInclude = { member: { select: { user: { select: { email: true } } } } } as const;

export function toApiKey(row: KeyRow): ApiKey {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    prefix: row.prefix,
    scopes: row.scopes as Scope[],
    memberId: row.memberId,
    memberEmail: row.member?.user.email ?? null,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}

/** A SCIM token is an organization key that can do nothing else, so a leaked one exposes the directory only. */
function refuseMixedScimScope(kind: ApiKey["kind"], scopes: Scope[]): void {
  if (!scopes.includes(SCIM_SCOPE)) return;
  if (kind !== "organization")
    throw new AppError("invalid_request", "Invalid request: the scim scope is for organization keys only.", {
      problems: [{ path: "scopes", message: "scim needs an organization key" }],
    });
  if (scopes.length > 1)
    throw new AppError("invalid_request", "Invalid request: a key with the scim scope can have no other scope.", {
      problems: [{ path: "scopes", message: "scim stands alone" }],
    });
}

/**
 * Creates a key and returns its secret, the only time it is ever shown. Organization keys
 * need an admin; a personal key belongs to the member who creates it (or, for the operator,
 * to the member named).
 */
export const createApiKey = guarded(
  { may: "keys" },
  async function createApiKey(
    db: Db,
    actor: Actor,
    input: CreateApiKeyInput & { memberId?: string },
  ): Promise<ApiKey & { secret: string }> {
    let memberId: string | null = null;
    if (input.kind === "organization") {
      authorize(actor, { may: "settings" });
    } else if (actor.kind === "member") {
      memberId = actor.member.id;
    } else if (actor.kind === "operator" && input.memberId) {
      const member = await db.member.findFirst({
        where: { id: input.memberId, organizationId: actor.organizationId, removedAt: null },
      });
      if (!member) throw new AppError("not_found", "No member with that id in this organization.");
      memberId = member.id;
    } else {
      throw new AppError("invalid_request", "A personal key needs the member it belongs to.");
    }
    const scopes = [...new Set(input.scopes)].sort(
      (a, b) => SCOPES.indexOf(a as (typeof SCOPES)[number]) - SCOPES.indexOf(b as (typeof SCOPES)[number]),
    );
    refuseMixedScimScope(input.kind, scopes);
    const secret = randomToken(SECRET_PREFIX[input.kind]);
    const create = (tx: Pick<Db, "apiKey">) =>
      tx.apiKey.create({
        data: {
          organizationId: actor.organizationId,
          memberId,
          kind: input.kind,
          name: input.name,
          scopes,
          prefix: secret.slice(0, SHOWN_PREFIX_LENGTH),
          secretHash: hashSecret(secret),
        },
        include: keyInclude,
      });
    const row = await recorded(db, actor, create, (key) => ({
      action: "api_key.create",
      target: { type: "api_key", id: key.id, label: key.name },
      changes: { scopes: [null, key.scopes], secret: [null, "changed"] },
    }));
    return { ...toApiKey(row), secret };
  },
);

/** Admins see every key of the organization; others see their own personal keys. */
export const listApiKeys = guarded({ may: "keys" }, async function listApiKeys(db: Db, actor: Actor): Promise<
  ApiKey[]
> {
  const seesAll =
    actor.kind === "operator" || (actor.kind === "member" && ["admin", "owner"].includes(actor.member.role));
  const ownMemberId = actor.kind === "member" ? actor.member.id : undefined;
  const rows = await db.apiKey.findMany({
    where: { organizationId: actor.organizationId, ...(seesAll ? {} : { memberId: ownMemberId ?? "" }) },
    include: keyInclude,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
  });
  return rows.map(toApiKey);
});

/** Revocation takes effect on the next request in every process: keys are looked up per request. */
export const revokeApiKey = guarded(
  { may: "keys" },
  async function revokeApiKey(db: Db, actor: Actor, input: ApiKeyIdInput): Promise<ApiKey> {
    const key = await db.apiKey.findFirst({ where: { id: input.keyId, organizationId: actor.organizationId } });
    if (!key) throw new AppError("not_found", "No API key with that id in this organization.");
    const ownKey = actor.kind === "member" && key.memberId === actor.member.id;
    if (!ownKey) authorize(actor, { may: "members" });
    const revoke = (tx: Pick<Db, "apiKey">) =>
      tx.apiKey.update({
        where: { id: key.id, organizationId: actor.organizationId },
        data: { revokedAt: key.revokedAt ?? new Date() },
        include: keyInclude,
      });
    const row = await recorded(db, actor, revoke, () =>
      key.revokedAt ? null : { action: "api_key.revoke", target: { type: "api_key", id: key.id, label: key.name } },
    );
    return toApiKey(row);
  },
);
