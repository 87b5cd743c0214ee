// STUB — DROP AT MERGE. The conversation runtime is being written in main; this file only
// keeps the MCP branch compiling with the exact signature the real module exports. Until the
// merge replaces it, every conversation answers `not_found`.
import type { Actor } from "@/server/auth/actor";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";

export async function converse(
  _db: Db,
  _actor: Actor,
  input: { appId: string; message: string; conversationId?: string },
  _options?: { signal?: AbortSignal },
): Promise<{ reply: string; conversation_id: string; greeting: string }> {
  throw new AppError("not_found", `No published app ${input.appId} in this organization.`);
}
