// The editors' draft preview: one message run against the DRAFT of an agent, flow or app (what
// the builder is editing, published or not), with the transcript so far. It is a test run in the
// contract's sense: 1 credit per message (checked before it runs, given back when our side
// failed), recorded as a `test` execution with its trace; nothing is graded.
import type { BuilderKind } from "@/schemas/builder";
import type { DraftPreview } from "@/schemas/runtime";
import type { Actor } from "@/server/auth/actor";
import { guardedByKind } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { isAppError, toAppError } from "@/server/errors";
import { appRunForDraft, assertCompleteDraft, loadDraft } from "@/server/runtime/load";
import { jsonObjectIn } from "@/server/runtime/json-in-text";
import type { Turn } from "@/server/runtime/model-types";
import { boundedReply, inputsFromMessage, newRunContext, runAgent, runApp, runFlow } from "@/server/runtime/run";
import { writesKind } from "./builder-kinds";
import { chargeCredits, refundCredits } from "./credits";
import { recordExecution } from "./executions";
import { TEST_CASE_CREDITS } from "./test-runs";
import { recordRefusal } from "./usage";

export const previewDraft = guardedByKind(
  writesKind,
  async function previewDraft(db: Db, actor: Actor, kind: BuilderKind, input: { id: string; message: string; history: Turn[] }): Promise<DraftPreview> {
    const { runnable } = await loadDraft(db, actor, kind, input.id);
    assertCompleteDraft(kind, runnable.document);
    const appRun = kind === "app" ? await appRunForDraft(db, actor, runnable as Parameters<typeof appRunForDraft>[2]) : null;
    await chargeCredits(db, actor.organizationId, TEST_CASE_CREDITS).catch(async (error: unknown) => {
      if (isAppError(error)) await recordRefusal(db, { organizationId: actor.organizationId, appId: runnable.id }, error.code);
      throw error;
    });
    const ctx = newRunContext(db, actor.organizationId);
    const started = performance.now();
    let reply = "";
    let error: string | null = null;
    let billed = true;
    try {
      if (kind === "agent") reply = await runAgent(ctx, runnable as Parameters<typeof runAgent>[1], input.message, input.history);
      else if (kind === "flow") {
        // As in a test case: a JSON object of the flow's inputs, or text for its first text input.
        const flow = runnable as Parameters<typeof runFlow>[1];
        reply = boundedReply(await runFlow(ctx, flow, jsonObjectIn(input.message) ?? inputsFromMessage(flow.document, input.message)));
      } else reply = await runApp(ctx, appRun!, input.message, input.history);
    } catch (cause) {
      const failure = toAppError(cause);
      error = failure.message;
      // As in a test run: our failure, or a provider failing before anything ran, is given back.
      billed = !(failure.code === "server_error" || (failure.code === "provider_error" && ctx.trace.length === 0));
      if (!billed) await refundCredits(db, actor.organizationId, TEST_CASE_CREDITS);
    }
    const latencyMs = performance.now() - started;
    const execution = await recordExecution(db, actor, {
      kind: "test",
      itemId: runnable.id,
      itemKind: kind,
      versionId: null,
      status: error ? "failed" : "succeeded",
      credits: billed ? TEST_CASE_CREDITS : 0,
      latencyMs,
      input: input.message,
      output: reply,
      error,
      trace: ctx.trace,
    });
    return { reply, error, executionId: execution.id, latencyMs: Math.round(latencyMs), credits: billed ? TEST_CASE_CREDITS : 0 };
  },
);
