// An end user's own conversations (the portal): listed, read, renamed and hidden; never anyone else's.
import type { z } from "zod";
import { isUuid } from "@/schemas/common";
import type {
  DeletePortalConversationInput,
  GetPortalConversationInput,
  ListPortalConversationsInput,
  RenamePortalConversationInput,
} from "@/schemas/portal/portal";
import type { EndUserActor } from "@/server/auth/actor";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { recordEvent } from "../org/events";
import { builderItemNames } from "../support/item-names";
import { decodeCursor, encodeCursor } from "../support/pagination";
import { citationsOf, messageAttachments } from "./conversation-shared";

/** The end user's conversations, most recently active first; never anyone else's. */
export async function listEndUserConversations(
  db: Db,
  actor: EndUserActor,
  input: Omit<z.infer<typeof ListPortalConversationsInput>, "portal">,
) {
  // The cursor pairs (updatedAt, id) of the last conversation handed out.
  const cursor = input.cursor ? decodeCursor(input.cursor) : null;
  // `contains` is ILIKE with the text's wildcards escaped: no pattern from the end user runs.
  const q = input.q?.trim();
  const matching = q
    ? {
        OR: [
          { title: { contains: q, mode: "insensitive" as const } },
          { messages: { some: { supersededAt: null, content: { contains: q, mode: "insensitive" as const } } } },
        ],
      }
    : {};
  const rows = await db.conversation.findMany({
    where: {
      organizationId: actor.organizationId,
      endUserId: actor.endUser.id,
      hiddenAt: null,
      ...(input.appId ? { appId: input.appId } : {}),
      ...matching,
      ...(cursor
        ? { OR: [{ updatedAt: { lt: cursor.createdAt } }, { updatedAt: cursor.createdAt, id: { lt: cursor.id } }] }
        : {}),
    },
    orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
    take: input.limit + 1,
  });
  const page = rows.slice(0, input.limit);
  const last = page[page.length - 1];
  const names = await builderItemNames(
    db,
    actor.organizationId,
    page.map((row) => row.appId),
  );
  return {
    conversations: page.map((row) => ({
      id: row.id,
      appId: row.appId,
      appName: names.get(row.appId) ?? "",
      title: row.title,
      updatedAt: row.updatedAt.toISOString(),
    })),
    nextCursor: rows.length > input.limit && last ? encodeCursor({ createdAt: last.updatedAt, id: last.id }) : null,
  };
}

/** The end user's own conversation, not deleted by them; anyone else's answers not_found. */
async function ownConversation(db: Db, actor: EndUserActor, conversationId: string) {
  const conversation = isUuid(conversationId)
    ? await db.conversation.findFirst({
        where: {
          id: conversationId,
          organizationId: actor.organizationId,
          endUserId: actor.endUser.id,
          hiddenAt: null,
        },
      })
    : null;
  if (!conversation) throw new AppError("not_found", "No conversation with that id.");
  return conversation;
}

/** Renames one of the end user's conversations. */
export async function renameEndUserConversation(
  db: Db,
  actor: EndUserActor,
  input: Omit<z.infer<typeof RenamePortalConversationInput>, "portal">,
) {
  const conversation = await ownConversation(db, actor, input.conversationId);
  const title = input.title.trim();
  const [updated] = await db.$transaction([
    db.conversation.update({ where: { id: conversation.id, organizationId: actor.organizationId }, data: { title } }),
    recordEvent(db, actor, {
      action: "conversation.rename",
      target: { type: "conversation", id: conversation.id, label: title },
      changes: { title: [conversation.title, title] },
    }),
  ]);
  const names = await builderItemNames(db, actor.organizationId, [updated.appId]);
  return {
    conversation: {
      id: updated.id,
      appId: updated.appId,
      appName: names.get(updated.appId) ?? "",
      title: updated.title,
      updatedAt: updated.updatedAt.toISOString(),
    },
  };
}

/** Deletes a conversation for its end user only: hidden from them, kept for the organization (executions, console). */
export async function hideEndUserConversation(
  db: Db,
  actor: EndUserActor,
  input: Omit<z.infer<typeof DeletePortalConversationInput>, "portal">,
) {
  const conversation = await ownConversation(db, actor, input.conversationId);
  await db.$transaction([
    db.conversation.updateMany({
      where: { id: conversation.id, organizationId: actor.organizationId, endUserId: actor.endUser.id },
      data: { hiddenAt: new Date() },
    }),
    recordEvent(db, actor, {
      action: "conversation.hide",
      target: { type: "conversation", id: conversation.id, label: conversation.title },
    }),
  ]);
  return { ok: true as const };
}

/** One of the end user's conversations with its messages; anyone else's answers not_found. */
export async function getEndUserConversation(
  db: Db,
  actor: EndUserActor,
  input: Omit<z.infer<typeof GetPortalConversationInput>, "portal">,
) {
  const conversation = await ownConversation(db, actor, input.conversationId);
  const [messages, names, files] = await Promise.all([
    db.conversationMessage.findMany({
      where: { conversationId: conversation.id, supersededAt: null },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    }),
    builderItemNames(db, actor.organizationId, [conversation.appId]),
    messageAttachments(db, actor.organizationId, conversation.id),
  ]);
  // What each answer's run charged: the same integer taken from the end user's pool.
  const runIds = messages.flatMap((m) => (m.role === "assistant" && m.executionId ? [m.executionId] : []));
  const charged = new Map(
    (
      await db.execution.findMany({
        where: { organizationId: actor.organizationId, id: { in: runIds } },
        select: { id: true, credits: true },
      })
    ).map((run) => [run.id, run.credits]),
  );
  return {
    id: conversation.id,
    appId: conversation.appId,
    appName: names.get(conversation.appId) ?? "",
    title: conversation.title,
    messages: messages.map((m) => ({
      id: m.id,
      role: m.role as "user" | "assistant",
      content: m.content,
      citations: citationsOf(m.citations),
      credits: m.role === "assistant" && m.executionId ? (charged.get(m.executionId) ?? null) : null,
      attachments: files.get(m.id) ?? [],
      createdAt: m.createdAt.toISOString(),
    })),
  };
}
