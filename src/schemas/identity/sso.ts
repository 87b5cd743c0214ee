// Single sign-on (OpenID Connect): the organization's connection as the console shows and sets it.
import { z } from "zod";
import { Timestamp, Uuid } from "../common";
import {
  MAX_CLIENT_SECRET_CHARS,
  MAX_DOMAIN_CHARS,
  MAX_LABEL_CHARS,
  MAX_SHORT_NAME_CHARS,
  MAX_SSO_DOMAINS,
  MAX_URL_CHARS,
} from "../limits";

export const SsoConnection = z.object({
  id: Uuid,
  protocol: z.enum(["oidc", "saml"]),
  /** OpenID Connect: the issuer URL; SAML: the identity provider's entity id. */
  issuer: z.string(),
  clientId: z.string().nullable(),
  saml: z
    .object({
      ssoUrl: z.string(),
      certificates: z.number().int(),
      metadataUrl: z.string().nullable(),
      /** When the metadata at metadataUrl was last read and taken (at save, then daily). */
      metadataReadAt: Timestamp.nullable(),
      /** Why the last daily refresh failed (the last good metadata is kept), and when; null once one succeeds. */
      metadataRefresh: z.object({ error: z.string(), failedAt: Timestamp }).nullable(),
    })
    .nullable(),
  domains: z.array(z.string()),
  displayName: z.string(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const SetSsoConnectionInput = z.strictObject({
  issuer: z.string().trim().min(1).max(MAX_URL_CHARS),
  clientId: z.string().trim().min(1).max(MAX_LABEL_CHARS),
  /** Required for a new connection; kept as it is when omitted on a change. */
  clientSecret: z.string().min(1).max(MAX_CLIENT_SECRET_CHARS).optional(),
  domains: z.array(z.string().max(MAX_DOMAIN_CHARS)).max(MAX_SSO_DOMAINS).optional(),
  displayName: z.string().max(MAX_SHORT_NAME_CHARS).optional(),
});
export type SetSsoConnectionInput = z.infer<typeof SetSsoConnectionInput>;

/** "Test connection": what discovery fetched from the identity provider, and what it says. */
export const SsoTestResult = z.object({
  ok: z.literal(true),
  issuer: z.string(),
  /** The discovery document's address. */
  discoveryUrl: z.string(),
  durationMs: z.number().int(),
  endpoints: z.object({
    authorization: z.string().nullable(),
    token: z.string().nullable(),
    userinfo: z.string().nullable(),
    jwks: z.string().nullable(),
  }),
  scopesSupported: z.array(z.string()).nullable(),
  /** The signing keys the provider publishes (its JWKS), or why they could not be read. */
  signingKeys: z.object({ count: z.number().int().nullable(), error: z.string().nullable() }),
  /** The address to register at the provider, where it sends people back. */
  redirectUri: z.string(),
  /** The discovery document as the provider answered it (its first 8,000 characters). */
  document: z.string(),
});
export type SsoTestResult = z.infer<typeof SsoTestResult>;

/** SAML 2.0: the identity provider by its metadata (URL or document), or by its three settings. */
export const SetSamlConnectionInput = z.strictObject({
  /** Read the identity provider's settings from its metadata at this URL… */
  metadataUrl: z.string().trim().max(MAX_URL_CHARS).optional(),
  /** …or from this metadata document… */
  metadataXml: z.string().max(1_000_000).optional(),
  /** …or as given. */
  entityId: z
    .string()
    .trim()
    .max(MAX_LABEL_CHARS * 2)
    .optional(),
  ssoUrl: z.string().trim().max(MAX_URL_CHARS).optional(),
  certificate: z.string().max(20_000).optional(),
  domains: z.array(z.string().max(MAX_DOMAIN_CHARS)).max(MAX_SSO_DOMAINS).optional(),
  displayName: z.string().max(MAX_SHORT_NAME_CHARS).optional(),
});
export type SetSamlConnectionInput = z.infer<typeof SetSamlConnectionInput>;

/** "Test sign-in": what the identity provider sent to the last test sign-in through it. */
export const SsoTestSignIn = z.object({
  protocol: z.string(),
  ok: z.boolean(),
  message: z.string(),
  sent: z.record(z.string(), z.unknown()),
  createdAt: Timestamp,
});
