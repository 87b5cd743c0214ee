// An organization's model providers and MCP server connections, as the console and the admin CLI
// write them and read them back. Credentials are write-only: inputs take them, outputs only say
// whether one is stored (providers) or which header names are (MCP connections).
import { z } from "zod";
import { httpUrl, nameText, plainText, Timestamp, Uuid } from "../common";
import { MAX_CREDENTIAL_CHARS, MAX_LABEL_CHARS, MAX_SHORT_NAME_CHARS, MAX_SLUG_CHARS } from "../limits";

/** Lowercase letters, digits and dashes: the first part of `<provider slug>/<model id>`. */
export const Slug = z
  .string()
  .trim()
  .min(1)
  .max(MAX_SLUG_CHARS)
  .regex(/^[a-z0-9][a-z0-9-]*$/, "Lowercase letters, digits and dashes, starting with a letter or digit");

/** A URL Atrium calls on the organization's behalf. */
export const ServiceUrl = httpUrl();
/** A credential: written, never read back. */
const Credential = plainText(MAX_CREDENTIAL_CHARS).min(1);

export const ProviderKind = z.enum(["openai-compatible", "anthropic"]);
export type ProviderKind = z.infer<typeof ProviderKind>;

export const OfferedModel = z.strictObject({
  id: plainText(MAX_LABEL_CHARS).trim().min(1),
  kind: z.enum(["chat", "embedding"]).default("chat"),
  images: z
    .boolean()
    .optional()
    .meta({ description: "Reads images attached to a turn; unset: true for anthropic, false for openai-compatible" }),
});

export const ModelProvider = z.object({
  id: Uuid,
  slug: z.string(),
  name: z.string(),
  kind: ProviderKind,
  baseUrl: z.string().nullable(),
  /** Whether an API key is stored; the key itself is never returned. */
  hasApiKey: z.boolean(),
  models: z.array(z.object({ id: z.string(), kind: z.enum(["chat", "embedding"]), images: z.boolean().optional() })),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type ModelProvider = z.infer<typeof ModelProvider>;

const providerFields = {
  name: nameText,
  baseUrl: ServiceUrl.optional(),
  apiKey: Credential.optional(),
  models: z.array(OfferedModel).min(1, "Offer at least one model").max(100),
};

export const CreateModelProviderInput = z.strictObject({ slug: Slug, kind: ProviderKind, ...providerFields });
export type CreateModelProviderInput = z.infer<typeof CreateModelProviderInput>;

export const UpdateModelProviderInput = z.strictObject({
  providerId: Uuid,
  name: providerFields.name.optional(),
  baseUrl: ServiceUrl.nullable().optional(),
  /** A new key; null removes the stored one; absent keeps it. */
  apiKey: Credential.nullable().optional(),
  models: providerFields.models.optional(),
});
export type UpdateModelProviderInput = z.infer<typeof UpdateModelProviderInput>;

export const ModelProviderIdInput = z.strictObject({ providerId: Uuid });

// ---------------------------------------------------------------------------------------------
// MCP server connections: an agent's `integrations[].toolkit` names one by its slug.

/** Headers the MCP transport sets itself; a connection may not override them. */
export const RESERVED_HEADER_NAMES = [
  "accept",
  "connection",
  "content-length",
  "content-type",
  "host",
  "mcp-protocol-version",
  "mcp-session-id",
  "transfer-encoding",
];

const HeaderName = z
  .string()
  .trim()
  .min(1)
  .max(MAX_SHORT_NAME_CHARS)
  .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, "An HTTP header name: letters, digits and !#$%&'*+.^_`|~-")
  .refine((name) => !RESERVED_HEADER_NAMES.includes(name.toLowerCase()), "Set by the MCP transport itself");
/** A header value: one line (no CR, LF or other control characters). */
const HeaderValue = Credential.refine(
  (value) => ![...value].some((c) => (c < " " && c !== "\t") || c === "\u007f"),
  "One line, without control characters",
);

export const McpHeader = z.strictObject({ name: HeaderName, value: HeaderValue });

const MAX_HEADERS = 20;
const eachNameOnce = (headers: { name: string }[]) =>
  new Set(headers.map((h) => h.name.toLowerCase())).size === headers.length;

const McpHeaders = z.array(McpHeader).max(MAX_HEADERS).refine(eachNameOnce, "Each header name once");

export const McpConnection = z.object({
  id: Uuid,
  slug: z.string(),
  name: z.string(),
  url: z.string(),
  /** The names of the stored headers; their values are never returned. */
  headerNames: z.array(z.string()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type McpConnection = z.infer<typeof McpConnection>;

export const CreateMcpConnectionInput = z.strictObject({
  slug: Slug,
  name: nameText,
  url: ServiceUrl,
  headers: McpHeaders.default([]),
});
export type CreateMcpConnectionInput = z.infer<typeof CreateMcpConnectionInput>;

export const UpdateMcpConnectionInput = z.strictObject({
  connectionId: Uuid,
  name: nameText.optional(),
  url: ServiceUrl.optional(),
  /**
   * Replaces every stored header ([] removes them); absent keeps them. A header without a value
   * keeps the value stored under its name (the console's empty secret field).
   */
  headers: z
    .array(z.strictObject({ name: HeaderName, value: HeaderValue.optional() }))
    .max(MAX_HEADERS)
    .refine(eachNameOnce, "Each header name once")
    .optional(),
});
export type UpdateMcpConnectionInput = z.infer<typeof UpdateMcpConnectionInput>;

export const McpConnectionIdInput = z.strictObject({ connectionId: Uuid });

export const McpTool = z.object({ name: z.string(), description: z.string() });
export type McpTool = z.infer<typeof McpTool>;

export const McpToolList = z.object({
  tools: z.array(McpTool),
  /** The server offered more tools than Atrium reads, or some it could not use (see docs/providers-and-tools.md). */
  truncated: z.boolean(),
});
export type McpToolList = z.infer<typeof McpToolList>;
