import { z } from "zod";
import { ApiKey, ApiKeyIdInput, CreateApiKeyInput, CreatedApiKey } from "@/schemas/identity/api-key";
import { createApiKey, listApiKeys, revokeApiKey } from "@/server/services/identity/api-keys";
import { router } from "../../init";
import { memberCalls } from "../../service-procedures";

export const apiKeysRouter = router({
  list: memberCalls.query(listApiKeys, z.array(ApiKey)),
  create: memberCalls.mutationWith(createApiKey, CreateApiKeyInput, CreatedApiKey),
  revoke: memberCalls.mutationWith(revokeApiKey, ApiKeyIdInput, ApiKey),
});
