// The console's reads of an app's conversations: the list, the starters, one conversation's messages.
import type { Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { conversationStarters } from "../portal/portal-apps";
import { citationsOf, messageAttachments } from "./conversation-shared";

const CONVERSATION_LIST_LIMIT = 50;

/** The organization's conversations with one app, most recently active first (the console chat). */
export const listConversations = guarded(
  { scope: "apps:read" },
  async function listConversations(db: Db, actor: Actor, input: { appId: string }) {
    const rows = await db.conversation.findMany({
      where: { organizationId: actor.organizationId, appId: input.appId, endUserId: null },
      orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
      take: CONVERSATION_LIST_LIMIT,
    });
    return {
      conversations: rows.map((row) => ({
        id: row.id,
        title: row.title,
        startedBy: row.startedBy,
        createdAt: row.createdAt.toISOString(),
        updatedAt: row.updatedAt.toISOString(),
      })),
    };
  },
);

/** The conversation starters the console chat offers for an app: those the portal offers (its live version's agents'). */
export const getConversationStarters = guarded(
  { scope: "apps:read" },
  async function getConversationStarters(
    db: Db,
    actor: Actor,
    input: { appId: string },
  ): Promise<{
    conversationStarters: string[];
  }> {
    const item = await db.builderItem.findFirst({
      where: { id: input.appId, organizationId: actor.organizationId, kind: "app" },
      select: { productionVersionId: true },
    });
    if (!item?.productionVersionId) throw new AppError("not_found", "No published app with that id.");
    const versions = await db.builderVersion.findMany({
      where: { organizationId: actor.organizationId, id: item.productionVersionId },
      select: { itemId: true, pins: true },
    });
    return {
      conversationStarters: (await conversationStarters(db, actor.organizationId, versions)).get(input.appId) ?? [],
    };
  },
);

/** One conversation's messages in order; an assistant message names the execution that produced it. */
export const getConversationMessages = guarded(
  { scope: "apps:read" },
  async function getConversationMessages(db: Db, actor: Actor, input: { conversationId: string }) {
    const conversation = await db.conversation.findFirst({
      where: { id: input.conversationId, organizationId: actor.organizationId, endUserId: null },
    });
    if (!conversation) throw new AppError("not_found", "No conversation with that id.");
    const [messages, files] = await Promise.all([
      db.conversationMessage.findMany({
        where: {
          conversationId: conversation.id,
          conversation: { organizationId: actor.organizationId },
          supersededAt: null,
        },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      }),
      messageAttachments(db, actor.organizationId, conversation.id),
    ]);
    return {
      conversation: { id: conversation.id, appId: conversation.appId, title: conversation.title },
      messages: messages.map((m) => ({
        id: m.id,
        role: m.role as "user" | "assistant",
        content: m.content,
        executionId: m.executionId,
        citations: citationsOf(m.citations),
        attachments: files.get(m.id) ?? [],
        createdAt: m.createdAt.toISOString(),
      })),
    };
  },
);
