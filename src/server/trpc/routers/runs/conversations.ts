// Console chat: a member's view of an app's conversations and their messages (no REST route).
import { z } from "zod";
import { Uuid } from "@/schemas/common";
import {
  getConversationMessages,
  getConversationStarters,
  listConversations,
} from "@/server/services/runs/conversation-reads";
import { router, scopedProcedure } from "../../init";

export const conversationsRouter = router({
  list: scopedProcedure(listConversations.requirement)
    .input(z.strictObject({ appId: Uuid }))
    .query(({ ctx, input }) => listConversations(ctx.db, ctx.actor, input)),
  starters: scopedProcedure(getConversationStarters.requirement)
    .input(z.strictObject({ appId: Uuid }))
    .query(({ ctx, input }) => getConversationStarters(ctx.db, ctx.actor, input)),
  messages: scopedProcedure(getConversationMessages.requirement)
    .input(z.strictObject({ conversationId: Uuid }))
    .query(({ ctx, input }) => getConversationMessages(ctx.db, ctx.actor, input)),
});
