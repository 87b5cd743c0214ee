// Single sign-on (OpenID Connect): the organization's connection as the console shows and sets it.
import { z } from "zod";
import { Timestamp, Uuid } from "./common";

export const SsoConnection = z.object({
  id: Uuid,
  issuer: z.string(),
  clientId: z.string(),
  domains: z.array(z.string()),
  displayName: z.string(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const SetSsoConnectionInput = z.strictObject({
  issuer: z.string().trim().min(1).max(2_000),
  clientId: z.string().trim().min(1).max(500),
  /** Kept as it is when omitted on a change. */
  clientSecret: z.string().min(1).max(2_000).optional(),
  domains: z.array(z.string().max(253)).max(50).optional(),
  displayName: z.string().max(100).optional(),
});
