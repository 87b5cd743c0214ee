// Single sign-on (OpenID Connect): the organization's connection as the console shows and sets it.
import { z } from "zod";
import { Timestamp, Uuid } from "./common";
import {
  MAX_CLIENT_SECRET_CHARS,
  MAX_DOMAIN_CHARS,
  MAX_LABEL_CHARS,
  MAX_SHORT_NAME_CHARS,
  MAX_SSO_DOMAINS,
  MAX_URL_CHARS,
} from "./limits";

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
  issuer: z.string().trim().min(1).max(MAX_URL_CHARS),
  clientId: z.string().trim().min(1).max(MAX_LABEL_CHARS),
  /** Kept as it is when omitted on a change. */
  clientSecret: z.string().min(1).max(MAX_CLIENT_SECRET_CHARS).optional(),
  domains: z.array(z.string().max(MAX_DOMAIN_CHARS)).max(MAX_SSO_DOMAINS).optional(),
  displayName: z.string().max(MAX_SHORT_NAME_CHARS).optional(),
});
