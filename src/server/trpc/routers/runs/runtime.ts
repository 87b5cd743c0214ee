import { z } from "zod";
import type { BuilderKind } from "@/schemas/builder/builder";
import {
  ApprovalDetail,
  DecideApprovalInput,
  DecideApprovalOutput,
  ListApprovalsOutput,
  CancelConversationRunOutput,
  ConversationInput,
  ConversationRunEventsInput,
  ConversationRunEventsOutput,
  ConversationRunInput,
  DraftPreview,
  DraftPreviewInput,
  MessageFeedbackInput,
  MessageFeedbackOutput,
  ListExecutionsInput,
  ListExecutionsOutput,
  ListTestRunsInput,
  ListTestRunsOutput,
  RunTestsInput,
  SaveTestSuiteInput,
  TestRun,
  TestSuite,
  TransactionInput,
  ConverseOutput,
  TransactOutput,
  ExecutionOutput,
} from "@/schemas/runs/runtime";
import { Uuid } from "@/schemas/common";
import { FileIdInput, FileOutput, MAX_ATTACHMENT_BYTES } from "@/schemas/runs/attachment";
import { getFile, getFileContent, uploadFiles } from "@/server/services/runs/attachments";
import { converse } from "@/server/services/runs/conversations";
import { setMessageFeedback } from "@/server/services/runs/message-feedback";
import { decideApproval, getApproval, listPendingApprovals } from "@/server/services/runs/approvals";
import { isAwaiting } from "@/server/services/runs/approval-pause";
import { cancelConversationRun, openConversationRun, readRunEvents } from "@/server/services/runs/conversation-runs";
import { getExecution, listExecutions } from "@/server/services/runs/executions";
import { listTestRuns, runTests } from "@/server/services/builder/test-runs";
import { previewDraft } from "@/server/services/builder/draft-preview";
import { getTestSuite, saveTestSuite } from "@/server/services/builder/test-suites";
import { transact } from "@/server/services/runs/transactions";
import type { ErrorCode } from "@/server/errors";
import { router } from "../../init";
import { answeringAs, forKind, memberCalls, restProcedures } from "../../service-procedures";

/** Why a run of an app's live version is refused, through either door: a conversation turn or a transaction. */
const APP_RUN_REFUSALS: ErrorCode[] = [
  "version_not_found",
  "service_disabled",
  "insufficient_credits",
  "model_not_in_plan",
  "unpublished_dependencies",
  "not_found",
  "run_limit_exceeded",
  "invalid_workflow",
  "provider_error",
];

const appsRest = restProcedures("Apps");
const filesRest = restProcedures("Files");
const executionsRest = restProcedures("Executions");

function testProcedures(kind: BuilderKind, plural: "agents" | "flows" | "apps") {
  const rest = restProcedures(plural[0]!.toUpperCase() + plural.slice(1));
  return {
    run: rest.mutation("POST", forKind(runTests, kind), {
      path: `/${plural}/{id}/tests`,
      summary: `Run graded test cases against the ${kind}'s draft`,
      description: `Up to 10 cases, each run against the DRAFT and graded by the quality judge against \`rubric\` when given, else the case's \`expectedBehavior\`. 1 credit per case, checked before anything runs. Needs the quality checker in the organization's plan.${kind === "flow" ? " A draft whose nodes still lack their data (a draft may hold them) answers `invalid_workflow` naming each node, before anything runs." : ""}`,
      errors: [
        "feature_not_available",
        "insufficient_credits",
        "not_found",
        ...(kind === "app" ? (["unpublished_dependencies"] as const) : []),
        ...(kind === "flow" ? (["invalid_workflow"] as const) : []),
      ],
      input: RunTestsInput,
      output: TestRun,
    }),
    list: rest.query(forKind(listTestRuns, kind), {
      path: `/${plural}/{id}/tests`,
      summary: `List the ${kind}'s test runs`,
      errors: ["not_found"],
      input: ListTestRunsInput,
      output: ListTestRunsOutput,
    }),
    // The editors' preview panel: one message against the draft, billed as a test case.
    preview: memberCalls.mutationWith(forKind(previewDraft, kind), DraftPreviewInput, DraftPreview),
    // The console's Tests panel keeps its cases with the item (console only, like the panel).
    suite: memberCalls.queryWith(forKind(getTestSuite, kind), z.strictObject({ id: Uuid }), TestSuite),
    saveSuite: memberCalls.mutationWith(forKind(saveTestSuite, kind), SaveTestSuiteInput, TestSuite),
  };
}

export const runtimeRouter = router({
  conversationFeedback: appsRest.mutation("POST", setMessageFeedback, {
    path: "/apps/{appId}/conversation/messages/{messageId}/feedback",
    summary: "Rate a reply",
    description:
      "Thumbs up or down on an assistant message of a conversation, with an optional reason; `rating: null` clears it. Stored on the execution that produced the reply (its `feedback`; `GET /executions?feedback=`). A message of a conversation the caller may not read is `not_found`.",
    door: "apps",
    errors: ["not_found"],
    input: MessageFeedbackInput,
    output: MessageFeedbackOutput,
  }),
  uploadFile: filesRest
    .route("POST", uploadFiles.requirement, {
      path: "/files",
      summary: "Upload a file to attach to a conversation turn",
      description: `201. \`multipart/form-data\` with one \`file\` part (up to ${MAX_ATTACHMENT_BYTES / 1024 / 1024} MB: PDF, DOCX, PPTX, XLSX, TXT, MD, CSV, PNG, JPEG or WebP, typed by its content, never its name) and an optional \`endUserId\`. A document's text is extracted at once (an unreadable one is 422 \`unsupported_attachment\`). Pass its \`id\` in a turn's \`fileIds\`; the file then belongs to that conversation, is read only by its owner (the end user, or the member or key that uploaded it) and the organization's admins, and goes with the conversation (retention, erasure). Never searchable in knowledgebases.`,
      errors: ["not_found", "unsupported_attachment"],
      successStatus: 201,
      multipart: "files",
      input: z.strictObject({ endUserId: Uuid.optional() }),
      output: FileOutput,
    })
    // JSON carries no file: the service answers that a file part is required.
    .mutation(async ({ ctx, input }) => ({
      file: (await uploadFiles(ctx.db, ctx.actor, { ...input, files: [] })).files[0]!,
    })),
  getFile: filesRest.query(getFile, {
    path: "/files/{fileId}",
    summary: "An attached file's details",
    description:
      "Read by the file's owner (the end user it belongs to, the member or key that uploaded it) and the organization's admins (and organization keys); anyone else, another end user and another organization get `not_found`.",
    errors: ["not_found"],
    input: FileIdInput,
    output: FileOutput,
  }),
  /** Served by src/server/adapters/download.ts, which answers the bytes; the procedure documents it. */
  getFileContent: filesRest
    .route("GET", getFileContent.requirement, {
      path: "/files/{fileId}/content",
      summary: "Download an attached file",
      description:
        "The file's bytes as uploaded, always as a download (`Content-Disposition: attachment` with its name), under the content type stored at upload (`X-Content-Type-Options: nosniff`, `Cache-Control: private, no-store`). The same readers as `GET /files/{fileId}`: its owner and the organization's admins (and organization keys); anyone else, another end user and another organization get `not_found`.",
      errors: ["not_found"],
      download: "file",
      input: FileIdInput,
      // Over tRPC, the bytes in base64.
      output: z.string(),
    })
    .query(async ({ ctx, input }) =>
      Buffer.from((await getFileContent(ctx.db, ctx.actor, input)).bytes).toString("base64"),
    ),
  conversation: appsRest
    .route("POST", converse.requirement, {
      path: "/apps/{appId}/conversation",
      summary: "Send a message to a published app",
      description:
        "The Supervisor routes the message to the app's members at their pinned versions and returns one synthesized reply. Pass the previous `conversation_id` to continue a conversation (prior turns are restored server-side). Each call runs and bills as one execution (1 credit); with `stream: true` the answer is `text/event-stream`. With `endUserId` (and optionally `portalId`) the call is made on behalf of that end user; refusals come in this order: the app (`not_found`, `service_disabled`), the end user (`not_found` when unknown, inactive or without access to the app), the conversation (`not_found` unless it is that end user's), then credits (402 when neither one of their pools nor the organization can cover it). Files: `fileIds` (from `POST /files`), or `multipart/form-data` with the fields and up to 5 `file` parts (4.5 MB per request); a document's text is a passage the reply cites like a source, an image goes to the app's models that accept images (422 `unsupported_attachment` before anything runs when none does).",
      door: "apps",
      stream: true,
      multipart: "conversation",
      alsoSucceeds: {
        status: 202,
        schema: "AwaitingApproval",
        description:
          'The run reached a flow\'s approval node and waits for a decision: `{executionId, conversation_id, status: "awaiting_approval"}`',
      },
      errors: [...APP_RUN_REFUSALS, "unsupported_attachment"],
      input: ConversationInput,
      output: ConverseOutput,
    })
    .mutation(async ({ ctx, input }) => {
      const result = await converse(ctx.db, ctx.actor, {
        appId: input.appId,
        message: input.message,
        conversationId: input.conversation_id,
        regenerate: input.regenerate,
        endUserId: input.endUserId,
        portalId: input.portalId,
        version: input.version,
        fileIds: input.fileIds,
      });
      if (isAwaiting(result)) ctx.response.status = 202;
      return result;
    }),

  conversationRunEvents: appsRest
    .route("GET", openConversationRun.requirement, {
      path: "/apps/{appId}/conversation/runs/{executionId}/events",
      summary: "Resume a conversation run's stream",
      description:
        "Server-Sent Events of a streamed conversation run (the `execution_id` of its `run` event), usable with `EventSource`: every event from the start, or after the one named by the `Last-Event-ID` header (or `lastEventId`), then live until `done` or `error`. A finished run replays in full for 24 hours; 204 when the client already has its last event (an EventSource stops reconnecting). Same key rules as the conversation POST. An unknown run, or one started through another door or organization, is `not_found`. Reading never runs or bills anything.",
      door: "apps",
      events: true,
      errors: ["not_found"],
      input: ConversationRunEventsInput,
      output: ConversationRunEventsOutput,
    })
    .query(async ({ ctx, input }) => {
      const run = await openConversationRun(ctx.db, ctx.actor, input);
      const events = await readRunEvents(ctx.db, run, Number(input.lastEventId ?? 0));
      return {
        events: events.map((event) => ({ id: event.seq, event: event.event, data: JSON.parse(event.data) as unknown })),
      };
    }),

  cancelConversationRun: appsRest
    .route("POST", cancelConversationRun.requirement, {
      path: "/apps/{appId}/conversation/runs/{executionId}/cancel",
      summary: "Stop a conversation run",
      description:
        "Stops a streamed run, whichever server process runs it: its stream ends with an `error` event of code `canceled`, and its execution's status is `canceled`. 202 with the execution once it stopped; the run is billed, since it ran. A run that already ended: 200 with its execution, unchanged. Same key rules as the conversation POST.",
      door: "apps",
      successStatus: 202,
      alsoSucceeds: { status: 200, description: "The run had already ended: its execution, unchanged" },
      errors: ["not_found"],
      input: ConversationRunInput,
      output: CancelConversationRunOutput,
    })
    .mutation(async ({ ctx, input }) => {
      const { status, execution } = await cancelConversationRun(ctx.db, ctx.actor, input);
      ctx.response.status = status;
      return { execution };
    }),

  transaction: appsRest
    .route("POST", transact.requirement, {
      path: "/apps/{appId}/transaction",
      summary: "Run a transaction: JSON in, JSON out",
      description:
        "`input` is checked against the app's published `api.inputSchema` (every problem named). The reply must be a JSON object matching `api.outputSchema`, else 502 `output_invalid` with `raw` and JSON-pointer `details` (the run is still billed). A reply holding no JSON object is read as `{\"reply\": text}`. 1 credit. With `endUserId` (and optionally `portalId`) the call is made on behalf of that end user: the app is checked first, then the end user (`not_found` when unknown, inactive or without access), then the input, then credits (their pool and the organization's balance).",
      door: "apps",
      alsoSucceeds: {
        status: 202,
        schema: "AwaitingApproval",
        description:
          'The run reached a flow\'s approval node and waits for a decision: `{executionId, status: "awaiting_approval"}`; `GET /executions/{executionId}` has its output once it ends',
      },
      // Before provider_error, as the document has always listed the two 502 codes.
      errors: ["output_invalid", ...APP_RUN_REFUSALS],
      input: TransactionInput,
      output: TransactOutput,
    })
    .mutation(async ({ ctx, input }) => {
      const result = await transact(ctx.db, ctx.actor, input);
      if (isAwaiting(result)) ctx.response.status = 202;
      return result;
    }),

  agentTests: router(testProcedures("agent", "agents")),
  flowTests: router(testProcedures("flow", "flows")),
  appTests: router(testProcedures("app", "apps")),

  executions: executionsRest.query(listExecutions, {
    path: "/executions",
    summary: "List runs with their trace, latency and credits",
    description:
      "Filter by `itemId`, by `endUserId` (runs for an end user, in a portal or over the API on their behalf), by `portalId` or by `status`; `outcome=failure` lists the runs GET /usage counts as `failures` (`failed` or `output_invalid`). Runs refused before they ran are not executions (nothing ran): GET /usage/refusals lists them. Oldest first; `order=newest` for the latest first.",
    input: ListExecutionsInput,
    output: ListExecutionsOutput,
  }),

  execution: executionsRest.query(answeringAs("execution", getExecution), {
    path: "/executions/{executionId}",
    summary: "One run",
    errors: ["not_found"],
    input: z.strictObject({ executionId: z.uuid() }),
    output: ExecutionOutput,
  }),

  approvals: executionsRest.query(listPendingApprovals, {
    path: "/approvals",
    summary: "Runs waiting for an approval",
    description:
      "The organization's runs paused at a flow's `approval` node and not decided yet, oldest first (at most 100), with `total`.",
    input: z.strictObject({}).optional(),
    output: ListApprovalsOutput,
  }),

  approval: executionsRest.query(getApproval, {
    path: "/executions/{executionId}/approval",
    summary: "A run's approval, with what it wants to do and why",
    description:
      "The approval node's message, the run's input, the paused flow's inputs, variables and the outputs of the nodes before it, and the decision once taken.",
    errors: ["not_found"],
    input: z.strictObject({ executionId: Uuid }),
    output: ApprovalDetail,
  }),

  decideApproval: executionsRest
    .route("POST", decideApproval.requirement, {
      path: "/executions/{executionId}/approval",
      summary: "Approve or reject a run waiting for an approval",
      description:
        "A person's decision (a personal key, or the console; role member or above) on a run paused at a flow's `approval` node. Approved: the run continues to its end in the background (`execution.completed` when it ends). Rejected: it ends `failed` with the reason. A second decision, or one after the node's timeout, is 409 `conflict`; another organization's run is `not_found`.",
      errors: ["not_found", "conflict", "forbidden_role"],
      input: DecideApprovalInput,
      output: DecideApprovalOutput,
    })
    .mutation(async ({ ctx, input }) => ({ execution: (await decideApproval(ctx.db, ctx.actor, input)).execution })),
});
