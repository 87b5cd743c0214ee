import { z } from "zod";
import { ApiKey, ApiKeyIdInput, CreateApiKeyInput, CreatedApiKey } from "@/schemas/identity/api-key";
import { createApiKey, listApiKeys, revokeApiKey } from "@/server/services/identity/api-keys";
import { memberProcedure, router } from "../../init";

export const apiKeysRouter = router({
  list: memberProcedure(listApiKeys.requirement)
    .output(z.array(ApiKey))
    .query(({ ctx }) => listApiKeys(ctx.db, ctx.actor)),
  create: memberProcedure(createApiKey.requirement)
    .input(CreateApiKeyInput)
    .output(CreatedApiKey)
    .mutation(({ ctx, input }) => createApiKey(ctx.db, ctx.actor, input)),
  revoke: memberProcedure(revokeApiKey.requirement)
    .input(ApiKeyIdInput)
    .output(ApiKey)
    .mutation(({ ctx, input }) => revokeApiKey(ctx.db, ctx.actor, input)),
});
