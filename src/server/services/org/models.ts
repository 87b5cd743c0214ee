// The models an organization's agents can use: the built-in offline model, always, the
// operator's default provider's, and the organization's own providers' chat models; and which
// built-in tools this deployment provides.
import type { z } from "zod";
import type { ListModelsOutput } from "@/schemas/org/model";
import type { Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { builtInStatus } from "@/server/runtime/built-ins";
import { listAvailableModels } from "@/server/runtime/models";

export const listModels = guarded({}, async function listModels(db: Db, actor: Actor): Promise<
  z.infer<typeof ListModelsOutput>
> {
  const epoch = actor.kind === "key" ? actor.lookupEpoch : undefined;
  return { models: await listAvailableModels(db, actor.organizationId, epoch), builtIns: builtInStatus() };
});
