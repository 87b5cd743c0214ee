// The editors' draft preview: one message run against the DRAFT of an agent, flow or app (what
// the builder is editing, published or not), with the transcript so far. It is a test run in the
// contract's sense: 1 credit per message unless its models are priced, charged and settled by
// BilledRun (the one billing policy, src/server/runtime/billed-run.ts), recorded as a `test`
// execution with its trace; nothing is graded.
import type { z } from "zod";
import type { BuilderKind } from "@/schemas/builder/builder";
import type { DraftPreview, DraftPreviewInput } from "@/schemas/runs/runtime";
import { randomUUID } from "node:crypto";
import { actorLabel, type Actor } from "@/server/auth/actor";
import { guardedByKind } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { appRunForDraft, assertCompleteDraft, loadDraft } from "@/server/runtime/load";
import { jsonObjectIn } from "@/server/runtime/json-in-text";
import { runApp } from "@/server/runtime/run";
import { runAgent } from "@/server/runtime/run-agent";
import { boundedReply, newRunContext } from "@/server/runtime/run-context";
import { inputsFromMessage, runFlow } from "@/server/runtime/run-flow";
import { writesKind } from "../support/builder-kinds";
import { BilledRun, RUN_CREDITS } from "@/server/runtime/billed-run";
import { runnableModels } from "@/server/runtime/metering";

export const previewDraft = guardedByKind(
  writesKind,
  async function previewDraft(
    db: Db,
    actor: Actor,
    kind: BuilderKind,
    input: z.infer<typeof DraftPreviewInput>,
  ): Promise<DraftPreview> {
    const { runnable } = await loadDraft(db, actor, kind, input.id);
    assertCompleteDraft(kind, runnable.document);
    const appRun =
      kind === "app" ? await appRunForDraft(db, actor, runnable as Parameters<typeof appRunForDraft>[2]) : null;
    const ctx = newRunContext(db, actor.organizationId);
    const billed = await BilledRun.start(
      db,
      ctx,
      { organizationId: actor.organizationId, endUserId: null, usage: { appId: runnable.id, portalId: null } },
      RUN_CREDITS.testCase,
      {
        id: randomUUID(),
        kind: "test",
        itemId: runnable.id,
        itemKind: kind,
        versionId: null,
        conversationId: null,
        input: input.message,
        endUserId: null,
        portalId: null,
        actor: actorLabel(actor),
      },
      runnableModels(kind, runnable, appRun),
    );
    const started = performance.now();
    let reply = "";
    let error: string | null = null;
    try {
      if (kind === "agent")
        reply = await runAgent(ctx, runnable as Parameters<typeof runAgent>[1], input.message, input.history);
      else if (kind === "flow") {
        // As in a test case: a JSON object of the flow's inputs, or text for its first text input.
        const flow = runnable as Parameters<typeof runFlow>[1];
        reply = boundedReply(
          await runFlow(ctx, flow, jsonObjectIn(input.message) ?? inputsFromMessage(flow.document, input.message)),
        );
      } else reply = await runApp(ctx, appRun!, input.message, input.history);
    } catch (cause) {
      error = (await billed.fail(cause)).message;
    }
    const latencyMs = performance.now() - started;
    const execution = await billed.record(actor, {
      kind: "test",
      itemId: runnable.id,
      itemKind: kind,
      versionId: null,
      latencyMs,
      input: input.message,
      output: reply,
      trace: ctx.trace,
    });
    const { credits } = billed.outcome();
    const tokens = (side: "inputTokens" | "outputTokens") => ctx.meter.calls.reduce((sum, call) => sum + call[side], 0);
    return {
      reply,
      error,
      executionId: execution.id,
      latencyMs: Math.round(latencyMs),
      credits,
      inputTokens: tokens("inputTokens"),
      outputTokens: tokens("outputTokens"),
    };
  },
);
