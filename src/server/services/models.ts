// The models an organization's agents can use: the built-in offline model, always, the
// operator's default provider's, and the organization's own providers' chat models.
import type { Actor } from "@/server/auth/actor";
import type { Db } from "@/server/db";
import { availableModels } from "@/server/runtime/models";

export async function listModels(db: Db, actor: Actor): Promise<{ models: { id: string; name: string; provider: string }[] }> {
  return { models: await availableModels(db, actor.organizationId) };
}
