// Feedback on a reply: thumbs up or down on an assistant message.
import { isUuid } from "@/schemas/common";
import type { Actor, EndUserActor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { recordEvent } from "../org/events";

export interface MessageFeedbackInput {
  appId?: string;
  messageId: string;
  rating: "up" | "down" | null;
  reason?: string;
}

/**
 * Thumbs up or down on an assistant message, stored on the execution that produced it (null
 * clears it). The message is found by the rule that reads its conversation: an end user's own,
 * not deleted; the organization's for its members and keys. Anything else is not_found.
 */
export const setMessageFeedback = guarded(
  { scope: "apps:execute", endUsers: true },
  async function setMessageFeedback(db: Db, actor: Actor | EndUserActor, input: MessageFeedbackInput) {
    const notFound = new AppError("not_found", "No reply with that id.");
    if (!isUuid(input.messageId) || (input.appId !== undefined && !isUuid(input.appId))) throw notFound;
    const message = await db.conversationMessage.findFirst({
      where: {
        id: input.messageId.toLowerCase(),
        role: "assistant",
        supersededAt: null,
        executionId: { not: null },
        conversation: {
          organizationId: actor.organizationId,
          ...(input.appId ? { appId: input.appId.toLowerCase() } : {}),
          ...(actor.kind === "end_user" ? { endUserId: actor.endUser.id, hiddenAt: null } : {}),
        },
      },
      select: { executionId: true },
    });
    if (!message?.executionId) throw notFound;
    const at = input.rating ? new Date() : null;
    const executionId = message.executionId;
    await db.$transaction(async (tx) => {
      const updated = await tx.execution.updateMany({
        where: { id: executionId, organizationId: actor.organizationId },
        data: {
          feedbackRating: input.rating,
          feedbackReason: input.rating ? (input.reason ?? null) : null,
          feedbackAt: at,
        },
      });
      if (updated.count === 0) throw notFound;
      await recordEvent(tx, actor, {
        action: "execution.feedback",
        target: { type: "execution", id: executionId, label: input.messageId.toLowerCase() },
        changes: { rating: [null, input.rating ?? null] },
      });
    });
    return {
      feedback:
        input.rating && at ? { rating: input.rating, reason: input.reason ?? null, at: at.toISOString() } : null,
    };
  },
);
