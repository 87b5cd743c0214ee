// An organization's model providers, as the console and the admin CLI write them and read them
// back. Credentials are write-only: inputs take them, outputs only say whether one is stored.
import { z } from "zod";
import { nameText, plainText, Timestamp, Uuid } from "./common";
import { MAX_LABEL_CHARS } from "./limits";

/** Lowercase letters, digits and dashes: the first part of `<provider slug>/<model id>`. */
export const Slug = z
  .string()
  .trim()
  .min(1)
  .max(40)
  .regex(/^[a-z0-9][a-z0-9-]*$/, "Lowercase letters, digits and dashes, starting with a letter or digit");

/** A URL Atrium calls on the organization's behalf. */
const ServiceUrl = plainText(2_000).pipe(z.url({ protocol: /^https?$/, error: "An http or https URL" }));
/** A credential: written, never read back. */
const Credential = plainText(4_000).min(1);

export const ProviderKind = z.enum(["openai-compatible", "anthropic"]);
export type ProviderKind = z.infer<typeof ProviderKind>;

export const OfferedModel = z.strictObject({
  id: plainText(MAX_LABEL_CHARS).trim().min(1),
  kind: z.enum(["chat", "embedding"]).default("chat"),
});

export const ModelProvider = z.object({
  id: Uuid,
  slug: z.string(),
  name: z.string(),
  kind: ProviderKind,
  baseUrl: z.string().nullable(),
  /** Whether an API key is stored; the key itself is never returned. */
  hasApiKey: z.boolean(),
  models: z.array(z.object({ id: z.string(), kind: z.enum(["chat", "embedding"]) })),
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
