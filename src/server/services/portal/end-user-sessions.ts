// End-user sessions: one per sign-in, valid in every portal of the end user's organization and
// never in the console (its own table and cookie). An opaque token, stored hashed. Every request
// checks that the end user is still active, so revoking, suspending or deleting them ends it at once.
import { env } from "@/env";
import type { EndUserActor, RequestOrigin } from "@/server/auth/actor";
import { hashSecret, randomToken } from "@/server/auth/secrets";
import type { Db } from "@/server/db";
import type { Prisma } from "@/generated/prisma/client";
import { activeEndUserSql } from "./portal-access";
import { lookupEpochSql } from "@/server/lookup-epoch";

export interface NewEndUserSession {
  token: string;
  expiresAt: Date;
}

/**
 * Signs the end user in: a new session, and their identity marked verified by the way they signed
 * in; `signInEvent` (recordEvent()) commits with it.
 */
export async function startEndUserSession(
  db: Db,
  endUser: { id: string; organizationId: string },
  options: {
    authMethod?: "email_code" | "sso" | "embed";
    signInEvent?: Prisma.PrismaPromise<number>;
    /** An end before the usual lifetime's (an embed session ends with its token). */
    endsBy?: Date;
  } = {},
): Promise<NewEndUserSession> {
  const authMethod = options.authMethod ?? "email_code";
  const token = randomToken();
  const usualEnd = Date.now() + env().PORTAL_SESSION_TTL_HOURS * 3_600_000;
  const expiresAt = new Date(Math.min(usualEnd, options.endsBy?.getTime() ?? usualEnd));
  await db.$transaction([
    db.endUserSession.create({
      data: { tokenHash: hashSecret(token), organizationId: endUser.organizationId, endUserId: endUser.id, expiresAt },
    }),
    db.$executeRaw`update end_users set auth_method = ${authMethod}, email_verified_at = coalesce(email_verified_at, now()), last_seen_at = now(), updated_at = now() where id = ${endUser.id}::uuid`,
    ...(options.signInEvent ? [options.signInEvent] : []),
  ]);
  return { token, expiresAt };
}

/**
 * The signed-in end user for a session token, if the session is unexpired, belongs to the
 * portal's organization and the end user is active. Marks them seen (at most once a minute).
 */
export async function endUserForSession(
  db: Db,
  token: string | undefined,
  portal: { id: string; organizationId: string },
  origin?: RequestOrigin,
): Promise<EndUserActor | null> {
  if (!token) return null;
  const { rows } = await db.pool.query<{ id: string; email: string; full_name: string; epoch: string }>({
    name: "atrium_end_user_session",
    text: `with session as (
         select u.id, u.email, u.full_name, u.last_seen_at
         from end_user_sessions s join end_users u on u.id = s.end_user_id
         where s.token_hash = $1 and s.organization_id = $2 and u.organization_id = $2
           and s.expires_at > now() and ${activeEndUserSql("u")}
       ),
       seen as (
         update end_users set last_seen_at = now()
         from session where end_users.id = session.id and (session.last_seen_at is null or session.last_seen_at < now() - interval '1 minute')
       )
       select id, email, full_name,
         ${lookupEpochSql("$2")} as epoch
       from session`,
    values: [hashSecret(token), portal.organizationId],
  });
  const row = rows[0];
  if (!row) return null;
  return {
    kind: "end_user",
    organizationId: portal.organizationId,
    endUser: { id: row.id, email: row.email, fullName: row.full_name },
    portalId: portal.id,
    origin,
    lookupEpoch: row.epoch,
  };
}

export async function endEndUserSession(db: Db, token: string | undefined): Promise<void> {
  if (token) await db.endUserSession.deleteMany({ where: { tokenHash: hashSecret(token) } });
}
