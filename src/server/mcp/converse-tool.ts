// The `converse_with_app` tool: one message to a published app through the conversation
// runtime (`converse` in services/runs/conversations.ts), the function POST /apps/{appId}/conversation
// calls, with its requirement (scope `apps:execute`). The MCP door's switch is `mcpEnabled`
// (checked at authentication), so `appsApiEnabled` (the REST Apps endpoints' switch) does not apply here.
import { z } from "zod";
import { messageText, Uuid } from "@/schemas/common";
import { turnFileIds } from "@/schemas/runs/attachment";
import { pinnedVersion } from "@/schemas/runs/runtime";
import { authorize } from "@/server/auth/authorize";
import { isAwaiting } from "@/server/services/runs/approval-pause";
import { converse } from "@/server/services/runs/conversations";
import type { AtriumTool } from "./context";

export const ConverseToolInput = z.strictObject({
  appId: Uuid.meta({ description: "A published app's id (from list_apps)." }),
  message: messageText.meta({ description: "The user's message to the app." }),
  conversation_id: Uuid.optional().meta({
    description:
      "Omit to start a new conversation; pass the `conversation_id` a previous call returned to continue it (earlier turns are restored server-side, never resent).",
  }),
  version: pinnedVersion,
  fileIds: turnFileIds.meta({
    description:
      "Files uploaded first with `POST /api/v1/files` (at most 5), attached to this message: the reply can quote and cite them. An image needs an app with a model that reads images (`unsupported_attachment` otherwise).",
  }),
});

export const ConverseToolOutput = z.object({
  reply: z.string().meta({ description: "The app's reply." }),
  conversation_id: Uuid.meta({ description: "Pass it on the next message of this conversation." }),
  greeting: z.string().meta({ description: "The app's greeting." }),
});

export const converseTool: AtriumTool = {
  name: "converse_with_app",
  title: "Talk to a published app",
  description:
    "Sends one message to a published Atrium app and returns its synthesized reply: `{reply, conversation_id, greeting}`. Start without `conversation_id`, then pass the returned `conversation_id` on every later message of the same conversation. Each call runs and bills as one execution against the organization's credits (`insufficient_credits` when they cannot cover it; nothing is charged then). Other errors: `not_found` (no published app with that id), `service_disabled` (the app's Conversation service is off), `unpublished_dependencies`, `version_not_found` (a `version` that is not one of this app's), `unsupported_attachment` (an image the app's models cannot read). Needs the `apps:execute` scope, and `apps:write` as well with `version`.",
  input: ConverseToolInput,
  output: ConverseToolOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run(context, args, signal) {
    // The service checks again, but only after parsing: the requirement comes first so a key
    // without the scope hears insufficient_scope, not a complaint about its arguments.
    authorize(context.actor, converse.requirement);
    const input = ConverseToolInput.parse(args);
    const result = await converse(
      context.db,
      context.actor,
      {
        appId: input.appId,
        message: input.message,
        conversationId: input.conversation_id,
        version: input.version,
        fileIds: input.fileIds,
      },
      { signal },
    );
    // A run paused at an approval node answers no reply yet: say so, with where to follow it.
    if (isAwaiting(result))
      return ConverseToolOutput.parse({
        reply: `The app's run is waiting for an approval (execution ${result.executionId}); a member decides it in the console.`,
        conversation_id: result.conversation_id,
        greeting: "",
      });
    return ConverseToolOutput.parse(result);
  },
};
