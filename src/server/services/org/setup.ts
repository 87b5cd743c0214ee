// What a fresh installation and the demo need: an organization with an owner who can sign in.
import { randomBytes } from "node:crypto";
import { SCOPES } from "@/schemas/identity/auth";
import type { Organization } from "@/schemas/org/organization";
import type { Db } from "@/server/db";
import { createApiKey } from "../identity/api-keys";
import { addMember } from "../identity/members";
import { createOrganization, toOrganization } from "./organizations";
import { hashPassword } from "@/server/auth/passwords";

const FIRST_START_LOCK = 7_441_203_912;

function newPassword(): string {
  return randomBytes(12).toString("base64url");
}

export interface Login {
  email: string;
  password: string;
}

async function organizationWithOwner(db: Db, name: string, email: string) {
  const organization = await createOrganization(db, { name });
  const password = newPassword();
  const { member } = await addMember(
    db,
    { kind: "operator", organizationId: organization.id },
    { email, role: "owner", password },
  );
  return { organization, member, login: { email, password } };
}

/**
 * On the very first start, creates an organization and its owner and returns the owner's
 * credentials (to be printed once). Returns null when the installation already has one.
 * An advisory lock keeps two processes starting together from both doing it.
 */
export async function seedFirstOwner(db: Db): Promise<{ organization: Organization; login: Login } | null> {
  const login = { email: "owner@atrium.local", password: newPassword() };
  const passwordHash = await hashPassword(login.password);
  const organization = await db.$transaction(async (tx) => {
    await tx.$executeRaw`select pg_advisory_xact_lock(${FIRST_START_LOCK})`;
    if ((await tx.organization.count()) > 0) return null;
    const user = await tx.user.upsert({
      where: { email: login.email },
      create: { email: login.email, passwordHash },
      update: { passwordHash },
    });
    return tx.organization.create({
      data: { name: "My organization", members: { create: { userId: user.id, role: "owner" } } },
    });
  });
  return organization ? { organization: toOrganization(organization), login } : null;
}

/** A ready-to-use organization for trying Atrium and for tests: owner login and two keys. */
export async function seedDemo(db: Db) {
  const suffix = randomBytes(4).toString("hex");
  const { organization, member, login } = await organizationWithOwner(
    db,
    `Demo ${suffix}`,
    `owner-${suffix}@demo.atrium.local`,
  );
  const operator = { kind: "operator" as const, organizationId: organization.id };
  const orgKey = await createApiKey(db, operator, {
    name: "Demo organization key",
    kind: "organization",
    scopes: [...SCOPES],
  });
  const personalKey = await createApiKey(db, operator, {
    name: "Demo personal key",
    kind: "personal",
    scopes: [...SCOPES],
    memberId: member.id,
  });
  return { organization, orgKey, personalKey, login };
}
