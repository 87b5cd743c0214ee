// Runtime shapes: conversation, transaction, test runs and executions.
import { z } from "zod";
import { ListOrder, ListQuery, messageText, NextCursor, plainText, Timestamp, Uuid } from "../common";
import { turnFileIds } from "./attachment";
import { MAX_APPROVAL_COMMENT_CHARS, MAX_FEEDBACK_REASON_CHARS, MAX_MESSAGE_CHARS } from "../limits";

/** `regenerate` runs a conversation's last turn again: it needs the conversation; a new turn needs a message. */
export function checkRegenerate(
  body: { message?: string; conversation_id?: string; regenerate: boolean },
  ctx: z.core.$RefinementCtx,
): void {
  if (body.regenerate && !body.conversation_id)
    ctx.addIssue({ code: "custom", path: ["conversation_id"], message: "Required with `regenerate`" });
  if (!body.regenerate && body.message === undefined)
    ctx.addIssue({ code: "custom", path: ["message"], message: "Required" });
}

export const regenerateFlag = z.boolean().default(false).meta({
  description:
    "Run the conversation's last user message again (with `conversation_id`): its own run and credit; the previous last exchange is hidden from the transcript. With `message`, that text replaces the last user message (edit and resend)",
});

/** A turn's fields, the same at every door. */
const conversationTurn = {
  message: messageText.optional().meta({ description: "Required unless `regenerate`" }),
  conversation_id: Uuid.optional().meta({
    description: "From the previous reply; prior turns are restored server-side",
  }),
  regenerate: regenerateFlag,
  fileIds: turnFileIds,
};

/** The console's and the portal's chat stream body (`POST …/apps/{appId}/conversation`, src/server/adapters/conversation-door.ts). */
export const ChatConversationBody = z.strictObject(conversationTurn).superRefine(checkRegenerate);

/** `version` on the conversation and transaction calls: a builder runs a version that is not live. */
export const pinnedVersion = Uuid.optional().meta({
  description:
    "A version id of this app (from its versions list) to run instead of the live one; needs the `apps:write` scope besides `apps:execute`. A version of another app is `version_not_found` (422)",
});

export const ConversationInput = z
  .strictObject({
    appId: Uuid,
    ...conversationTurn,
    version: pinnedVersion,
    endUserId: Uuid.optional().meta({
      description:
        "Run on behalf of this end user: they must be active and have access to the app (else `not_found`); the credit comes from their plan's pool and the organization's balance, and the conversation is theirs alone",
    }),
    portalId: Uuid.optional().meta({
      description: "With `endUserId`: the portal the run counts as (grants limited to a portal, groups admitted to it)",
    }),
    stream: z.boolean().default(false).meta({
      description:
        'When true the answer is Server-Sent Events: `run` (`{"execution_id","conversation_id"}`) first, `delta` events (`{"text"}`) as the reply is produced, `step` events, then exactly one `done` (`{"reply","citations","conversation_id","execution_id"}`) or `error` (`{"error":{code,message}}`), each with an `id:`. The run goes on if the connection drops: resume it with `GET /apps/{appId}/conversation/runs/{executionId}/events`. A comment line is sent every 15 s on long runs.',
    }),
  })
  .superRefine(checkRegenerate);
export const Citation = z
  .object({
    n: z.number().int().min(1).meta({ description: "Cited as `[n]`, from 1 in the order first cited" }),
    kind: z.enum(["page", "source", "attachment"]),
    id: Uuid.meta({ description: "The page's, source's or attached file's id" }),
    knowledgebaseId: Uuid.nullable().meta({ description: "Null for a file attached to the conversation" }),
    title: z.string().meta({ description: "As a person reads it, never a file path" }),
    heading: z.string().nullable(),
    text: z.string().meta({ description: "The passage (≤ 2,000 characters)" }),
  })
  .meta({ id: "Citation" });
export type Citation = z.infer<typeof Citation>;
export const ConversationOutput = z.object({
  reply: z.string(),
  citations: z.array(Citation),
  conversation_id: Uuid,
  greeting: z.string(),
});

/** A streamed conversation run: the `execution_id` of its `run` event. */
export const ConversationRunInput = z.strictObject({ appId: Uuid, executionId: Uuid });
export const ConversationRunEventsInput = ConversationRunInput.extend({
  lastEventId: z
    .string()
    .regex(/^\d{1,9}$/)
    .optional()
    .meta({
      description:
        "Resume after the event with this `id:` (for clients that cannot send the `Last-Event-ID` header, which wins when both are sent)",
    }),
});
/** The stored events as JSON, for callers of the procedure itself (the REST door answers Server-Sent Events). */
export const ConversationRunEventsOutput = z.object({
  events: z.array(z.object({ id: z.number().int(), event: z.string(), data: z.unknown() })),
});

export const TransactionInput = z.strictObject({
  appId: Uuid,
  version: pinnedVersion,
  input: z
    .record(z.string(), z.unknown())
    .meta({ description: "Checked against the app's `api.inputSchema`; every problem is named" }),
  endUserId: Uuid.optional().meta({
    description:
      "Run on behalf of this end user: they must be active and have access to the app (else `not_found`); the credit comes from their plan's pool and the organization's balance, and the conversation is theirs alone",
  }),
  portalId: Uuid.optional().meta({
    description: "With `endUserId`: the portal the run counts as (grants limited to a portal, groups admitted to it)",
  }),
});
export const TransactionOutput = z.object({ output: z.record(z.string(), z.unknown()), executionId: Uuid });

export const TestCase = z.strictObject({
  id: plainText(100).min(1).optional().meta({ description: "Your id for the case; defaults to its position" }),
  input: plainText(20_000).min(1),
  expectedBehavior: plainText(5_000).default(""),
});
export const RunTestsInput = z.strictObject({
  id: Uuid,
  cases: z.array(TestCase).min(1).max(10),
  rubric: plainText(10_000).optional().meta({ description: "Graded against instead of each case's expectedBehavior" }),
});

/** The Tests panel's cases as kept with their item: an input may still be empty while being written. */
export const TestSuite = z.strictObject({
  cases: z.array(z.strictObject({ input: plainText(20_000), expectedBehavior: plainText(5_000) })).max(10),
  rubric: plainText(10_000),
});
export type TestSuite = z.infer<typeof TestSuite>;
export const SaveTestSuiteInput = TestSuite.extend({ id: Uuid });

/** The transcript a draft preview message carries: at most 40 turns of the preview so far. */
export const DraftPreviewInput = z.strictObject({
  id: Uuid,
  message: messageText,
  history: z
    .array(z.strictObject({ role: z.enum(["user", "assistant"]), content: plainText(MAX_MESSAGE_CHARS) }))
    .max(40),
});
export const DraftPreview = z.object({
  reply: z.string(),
  /** Why the run failed (it is shown in the transcript); null when it answered. */
  error: z.string().nullable(),
  executionId: Uuid,
  latencyMs: z.number().int(),
  credits: z.number().int(),
  /** The run's model calls summed, as its execution's `usage` counts them. */
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
});
export type DraftPreview = z.infer<typeof DraftPreview>;

const Failure = z.object({
  criterionId: z.string(),
  reason: z.string(),
  correctionHint: z.string(),
  targetNodeIds: z.array(z.string()),
});
const CaseResult = z.object({
  caseId: z.string(),
  input: z.string(),
  passed: z.boolean(),
  output: z.string(),
  failures: z.array(Failure),
  error: z.string().nullable(),
  executionId: z.string(),
  latencyMs: z.number().int(),
});
const Correction = z.object({
  criterionId: z.string(),
  testCaseId: z.string(),
  reason: z.string(),
  correctionHint: z.string(),
  targetNodeId: z.string(),
  suggestedAction: z.string(),
});
export const TestRunResult = z
  .object({
    tool: z.object({ id: Uuid, kind: z.string(), name: z.string() }),
    summary: z.object({ total: z.number().int(), passed: z.number().int(), failed: z.number().int() }),
    results: z.array(CaseResult),
    corrections: z.array(Correction),
  })
  .meta({ id: "TestRunResult" });
export type TestRunResult = z.infer<typeof TestRunResult>;
export const TestRun = TestRunResult.extend({ id: Uuid, createdAt: Timestamp }).meta({ id: "TestRun" });
export const ListTestRunsInput = ListQuery.extend({ id: Uuid });
export const ListTestRunsOutput = z.object({ testRuns: z.array(TestRun), nextCursor: NextCursor });

const TracePassage = z.object({
  kind: z.enum(["page", "source"]).meta({ description: "A knowledgebase page, or a passage of a source document" }),
  id: z.string().meta({ description: "The page's id, or the source's" }),
  knowledgebaseId: z.string(),
  title: z.string().meta({ description: "The page's or the document's title" }),
  heading: z.string().meta({ description: 'The headings above the passage, joined by " > "; empty for a whole page' }),
  snippet: z.string().meta({ description: "The start of the passage's text (its first 300 characters)" }),
});
export type TracePassage = z.infer<typeof TracePassage>;

const TraceEntry = z.object({
  id: z.string(),
  kind: z.string(),
  name: z.string(),
  versionId: z.string().nullable().optional(),
  model: z.string().optional(),
  passages: z.array(z.string()).optional(),
  retrieved: z.array(TracePassage).optional().meta({
    description:
      "The passages this step retrieved from knowledge, in the order the model received them: where each was found and how it starts",
  }),
  note: z.string().optional().meta({
    description: "Why the step found or did less than asked, e.g. a knowledgebase not found in the organization",
  }),
  input: z.string().optional().meta({
    description:
      "What the step was given (its first 4,096 characters): a flow's model step its prompt as rendered, a knowledge search its query, a tool call its arguments",
  }),
  output: z.string().meta({ description: "The step's output (its first 4,096 characters)" }),
  inputTokens: z.number().int().optional(),
  outputTokens: z.number().int().optional(),
  latencyMs: z.number(),
});
export const ModelCallUsage = z
  .object({
    model: z.string(),
    provider: z.string(),
    inputTokens: z.number().int(),
    outputTokens: z.number().int(),
    usageReported: z.boolean().meta({ description: "False when the provider reported none (0 tokens counted)" }),
    credits: z.number().int().meta({ description: "Its share of the run's credits" }),
    outcome: z.string().meta({ description: "`succeeded`, `failed` or `canceled`" }),
  })
  .meta({ id: "ModelCallUsage" });
export const ExecutionUsage = z
  .object({
    inputTokens: z.number().int(),
    outputTokens: z.number().int(),
    usageReported: z.boolean(),
    calls: z.array(ModelCallUsage),
  })
  .meta({ id: "ExecutionUsage" });
export type ExecutionUsage = z.infer<typeof ExecutionUsage>;

export const FEEDBACK_RATINGS = ["up", "down"] as const;
export type FeedbackRating = (typeof FEEDBACK_RATINGS)[number];
export const Feedback = z
  .object({ rating: z.enum(FEEDBACK_RATINGS), reason: z.string().nullable(), at: Timestamp })
  .meta({ id: "Feedback" });
export const FeedbackBody = z.strictObject({
  rating: z.enum(FEEDBACK_RATINGS).nullable().meta({ description: "null clears it" }),
  reason: plainText(MAX_FEEDBACK_REASON_CHARS).optional(),
});
export const MessageFeedbackInput = FeedbackBody.extend({ appId: Uuid, messageId: Uuid });
export const MessageFeedbackOutput = z.object({ feedback: Feedback.nullable() });
export const Execution = z
  .object({
    id: Uuid,
    kind: z.string(),
    itemId: Uuid,
    itemKind: z.string(),
    itemName: z
      .string()
      .nullable()
      .meta({ description: "The agent's, flow's or app's name now; null when it no longer exists" }),
    versionId: Uuid.nullable(),
    conversationId: Uuid.nullable(),
    status: z.string().meta({ description: "`succeeded`, `failed`, `canceled` or `output_invalid`" }),
    credits: z.number().int(),
    usage: ExecutionUsage.nullable().meta({ description: "null for runs recorded before tokens were metered" }),
    latencyMs: z.number().int(),
    input: z.string(),
    output: z.string(),
    error: z.string().nullable(),
    trace: z.array(TraceEntry),
    actor: z.string(),
    endUserId: Uuid.nullable().meta({
      description: "The end user the run was for (portal, or the API on their behalf)",
    }),
    endUserEmail: z.string().nullable(),
    portalId: Uuid.nullable().meta({ description: "The portal the run was made in" }),
    portalName: z.string().nullable(),
    feedback: Feedback.nullable().meta({ description: "The conversation owner's rating of the reply" }),
    createdAt: Timestamp,
  })
  .meta({ id: "Execution" });
export type Execution = z.infer<typeof Execution>;
export const CancelConversationRunOutput = z.object({ execution: Execution });
export const EXECUTION_STATUSES = ["succeeded", "failed", "canceled", "output_invalid", "awaiting_approval"] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];
/** The statuses GET /usage counts in `failures`, and GET /executions?outcome=failure lists. */
export const FAILURE_STATUSES = ["failed", "output_invalid"] as const satisfies readonly ExecutionStatus[];
export const ListExecutionsInput = ListQuery.extend({
  itemId: Uuid.optional(),
  status: z.enum(EXECUTION_STATUSES).optional().meta({ description: "Only runs that ended so" }),
  outcome: z.enum(["failure"]).optional().meta({
    description:
      "`failure`: only the runs GET /usage counts in `failures` (status `failed` or `output_invalid`). Refused runs never ran: GET /usage/refusals lists them",
  }),
  order: ListOrder,
  endUserId: Uuid.optional().meta({ description: "Only runs for this end user" }),
  portalId: Uuid.optional().meta({ description: "Only runs made in this portal" }),
  feedback: z.enum(FEEDBACK_RATINGS).optional().meta({ description: "Only runs whose reply was rated so" }),
});
export const ListExecutionsOutput = z.object({ executions: z.array(Execution), nextCursor: NextCursor });

// ---- Runs waiting for an approval (a flow's `approval` node) ----

/** What a conversation or transaction call answers (202) when its run paused at an approval node. */
export const AwaitingApprovalOutput = z
  .object({
    status: z.literal("awaiting_approval"),
    executionId: Uuid,
    conversation_id: Uuid.optional().meta({ description: "The conversation (conversation calls)" }),
  })
  .meta({ id: "AwaitingApproval" });

export const APPROVAL_STATUSES = ["pending", "approved", "resuming", "rejected", "timed_out", "done"] as const;

export const Approval = z
  .object({
    executionId: Uuid,
    kind: z.enum(["conversation", "transaction"]),
    appId: Uuid,
    appName: z.string().nullable(),
    flowId: Uuid,
    flowName: z.string().nullable(),
    nodeId: z.string(),
    message: z.string().meta({ description: "The approval node's message, rendered from the run's variables" }),
    status: z.enum(APPROVAL_STATUSES).meta({
      description:
        "`pending` (waiting for a decision), `approved` (continuing, then `done`), `rejected` or `timed_out` (the run failed)",
    }),
    requestedBy: z.string().meta({ description: "Who started the run" }),
    expiresAt: Timestamp,
    decidedBy: z.string().nullable(),
    decidedAt: Timestamp.nullable(),
    comment: z.string().nullable(),
    createdAt: Timestamp,
  })
  .meta({ id: "Approval" });
export type Approval = z.infer<typeof Approval>;

export const ApprovalDetail = z.object({
  approval: Approval,
  execution: Execution.nullable(),
  input: z.string().meta({ description: "What the run was asked" }),
  inputs: z.record(z.string(), z.unknown()).meta({ description: "The paused flow's inputs" }),
  variables: z.record(z.string(), z.unknown()).meta({ description: "What set_variable nodes had set" }),
  steps: z.array(z.object({ nodeId: z.string(), output: z.string() })).meta({
    description: "The outputs of the flow's nodes that ran before the approval",
  }),
});
export type ApprovalDetail = z.infer<typeof ApprovalDetail>;

export const DecideApprovalInput = z.strictObject({
  executionId: Uuid,
  decision: z.enum(["approve", "reject"]),
  comment: plainText(MAX_APPROVAL_COMMENT_CHARS)
    .optional()
    .meta({ description: "Why; shown with the decision and, approved, the node's output" }),
});
export const DecideApprovalOutput = z.object({ execution: Execution });
export const ListApprovalsOutput = z.object({ approvals: z.array(Approval), total: z.number().int() });

/** A conversation turn: the reply, or the run paused for an approval. */
export const ConverseOutput = z.union([ConversationOutput, AwaitingApprovalOutput]);
/** A transaction: its output, or the run paused for an approval. */
export const TransactOutput = z.union([TransactionOutput, AwaitingApprovalOutput]);
export const ExecutionOutput = z.object({ execution: Execution });
