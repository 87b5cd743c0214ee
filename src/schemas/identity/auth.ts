import { z } from "zod";
import { MAX_PASSWORD_CHARS } from "../limits";

export const SCOPES = [
  "end_users:read",
  "end_users:write",
  "knowledge:read",
  "knowledge:write",
  "agents:read",
  "agents:write",
  "flows:read",
  "flows:write",
  "apps:read",
  "apps:write",
  "apps:execute",
  "webhooks:read",
  "webhooks:write",
  "audit:read",
] as const;
/** The SCIM service's scope: given only when asked for, never part of "all scopes" (SCOPES), and alone on its key. */
export const SCIM_SCOPE = "scim";
export const Scope = z.enum([...SCOPES, SCIM_SCOPE]);
export type Scope = z.infer<typeof Scope>;

export const ROLES = ["viewer", "member", "admin", "owner"] as const;
export const Role = z.enum(ROLES);
export type Role = z.infer<typeof Role>;

export function roleAtLeast(role: Role, minimum: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(minimum);
}

export const SignInInput = z.strictObject({
  email: z.email().max(320),
  password: z.string().min(1).max(MAX_PASSWORD_CHARS),
});
export type SignInInput = z.infer<typeof SignInInput>;
