import { z } from "zod";
import { Scope } from "./auth";
import { nameText, Timestamp, Uuid } from "../common";
import { MAX_SHORT_NAME_CHARS } from "../limits";

export const ApiKeyKind = z.enum(["organization", "personal"]);

export const ApiKey = z.object({
  id: Uuid,
  name: z.string(),
  kind: ApiKeyKind,
  prefix: z.string(),
  scopes: z.array(Scope),
  memberId: Uuid.nullable(),
  memberEmail: z.string().nullable(),
  createdAt: Timestamp,
  lastUsedAt: Timestamp.nullable(),
  revokedAt: Timestamp.nullable(),
});
export type ApiKey = z.infer<typeof ApiKey>;

export const CreateApiKeyInput = z.strictObject({
  name: nameText.max(MAX_SHORT_NAME_CHARS),
  kind: ApiKeyKind,
  scopes: z.array(Scope).min(1, "Choose at least one scope"),
});
export type CreateApiKeyInput = z.infer<typeof CreateApiKeyInput>;

export const CreatedApiKey = ApiKey.extend({ secret: z.string() });

export const ApiKeyIdInput = z.strictObject({ keyId: Uuid });
export type ApiKeyIdInput = z.infer<typeof ApiKeyIdInput>;
