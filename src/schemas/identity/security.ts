import { z } from "zod";
import { Role } from "./auth";
import { Timestamp, Uuid } from "../common";

/** What the console's Security page shows owners. */
export const SecurityOverview = z.object({
  requireMfa: z.boolean(),
  passwordSignIn: z.boolean(),
  conversationRetentionDays: z.number().int().nullable(),
  auditRetentionDays: z.number().int(),
  sso: z
    .object({
      protocol: z.enum(["oidc", "saml"]),
      issuer: z.string(),
      displayName: z.string(),
      domains: z.array(z.string()),
      /** SAML by metadata URL: why the last daily refresh failed (the last good metadata is kept); null when it did not. */
      metadataError: z.string().nullable(),
    })
    .nullable(),
  members: z.array(
    z.object({
      id: Uuid,
      email: z.string(),
      role: Role,
      mfaEnrolledAt: Timestamp.nullable(),
      recoveryCodesLeft: z.number().int(),
      lastSignInAt: Timestamp.nullable(),
    }),
  ),
  recentSignIns: z.array(
    z.object({
      id: Uuid,
      occurredAt: Timestamp,
      email: z.string(),
      outcome: z.enum(["success", "failure"]),
      method: z.string(),
      ipAddress: z.string().nullable(),
    }),
  ),
});
