// What the console's and the end user's reads of a conversation share.
import type { Db } from "@/server/db";
import type { Citation } from "@/server/runtime/citations";

/** The files each message of a conversation carried, by message id. */
export async function messageAttachments(db: Db, organizationId: string, conversationId: string) {
  const rows = await db.attachment.findMany({
    where: { organizationId, conversationId, messageId: { not: null } },
    select: { id: true, messageId: true, name: true, format: true, sizeBytes: true },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  const byMessage = new Map<string, { id: string; name: string; format: string; sizeBytes: number }[]>();
  for (const { messageId, ...file } of rows) byMessage.set(messageId!, [...(byMessage.get(messageId!) ?? []), file]);
  return byMessage;
}

/** A stored message's citations (a JSON column the run wrote). */
export function citationsOf(stored: unknown): Citation[] {
  return Array.isArray(stored) ? (stored as Citation[]) : [];
}
