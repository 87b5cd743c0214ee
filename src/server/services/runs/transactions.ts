// App transactions: JSON in, JSON out, both checked against the app's published JSON Schemas.
// A reply that does not match the output schema is output_invalid (502) and still billed; what
// a failed one costs is src/server/runtime/billed-run.ts's policy.
import type { z } from "zod";
import type { TransactionInput } from "@/schemas/runs/runtime";
import { actorLabel, type Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError, invalidRequest } from "@/server/errors";
import type { RunRecord } from "@/server/runtime/billed-run";
import { JsonTooDeep, jsonObjectIn } from "@/server/runtime/json-in-text";
import { schemaProblems } from "@/server/runtime/json-schema";
import { RUN_LIMITS, runLimitExceeded } from "@/server/runtime/limits";
import { runApp } from "@/server/runtime/run";
import { isApprovalPause, newRunContext } from "@/server/runtime/run-context";
import { pauseForApproval } from "./approval-pause";
import { appRunFor, chargeAppRun } from "./app-runs";

/** What the app is asked for a transaction: its input, and the output's JSON Schema. */
export function transactionMessage(input: Record<string, unknown>, outputSchema: unknown): string {
  return `${JSON.stringify(input)}\n\nReply with only a JSON object matching this JSON Schema:\n${JSON.stringify(outputSchema)}`;
}

/** The JSON object a reply holds, or {"reply": text}; deeper than the run's bound is a run limit (nothing downstream recurses that far). */
export function replyObject(reply: string): Record<string, unknown> {
  try {
    return jsonObjectIn(reply, RUN_LIMITS.outputJsonDepth) ?? { reply };
  } catch (error) {
    if (error instanceof JsonTooDeep) throw runLimitExceeded("output depth");
    throw error;
  }
}

/** The transaction's run context and its charge (402 when the credits do not cover it; nothing runs then). */
async function startTransactionRun(
  db: Db,
  actor: Actor,
  input: z.infer<typeof TransactionInput>,
  app: AppRun["app"],
  runner: AppRun["runner"],
) {
  const started = performance.now();
  const ctx = newRunContext(db, actor.organizationId);
  ctx.pausable = true;
  const { billed, executionId } = await chargeAppRun(
    db,
    ctx,
    actor,
    "transaction",
    { appId: input.appId, app, runner },
    { conversationId: null, input: JSON.stringify(input.input) },
  );
  return { ctx, billed, executionId, started };
}

type AppRun = Awaited<ReturnType<typeof appRunFor>>;

/**
 * Refusals in the contract's order: the app (not_found, service_disabled), the end user it is
 * for (not_found), the input, then credits (402); nothing runs or is charged after a refusal.
 */
export const transact = guarded(
  { scope: "apps:execute" },
  async function transact(db: Db, actor: Actor, input: z.infer<typeof TransactionInput>) {
    const { app, api, runner } = await appRunFor(db, actor, "transaction", input);
    const problems = schemaProblems(api.inputSchema, input.input);
    if (problems.length)
      throw invalidRequest(
        problems.map((p) => ({ path: `input${p.pointer.replace(/\//g, ".")}`.replace(/\.$/, ""), message: p.message })),
      );

    const { ctx, billed, executionId, started } = await startTransactionRun(db, actor, input, app, runner);
    const message = transactionMessage(input.input, api.outputSchema);
    const record = (reply: string): RunRecord => ({
      kind: "transaction",
      itemId: input.appId,
      itemKind: "app",
      versionId: app.versionId,
      latencyMs: performance.now() - started,
      input: JSON.stringify(input.input),
      output: reply,
      trace: ctx.trace,
      endUserId: runner.endUserId,
      portalId: runner.portalId,
    });
    let reply: string;
    let output: Record<string, unknown>;
    try {
      reply = await runApp(ctx, app, message, [], { flowInputs: input.input });
      // A reply that holds no JSON object is taken as {"reply": text}.
      output = replyObject(reply);
    } catch (error) {
      if (isApprovalPause(error))
        return pauseForApproval(db, actor, billed, ctx, error, {
          executionId,
          state: {
            kind: "transaction",
            appId: input.appId,
            versionId: app.versionId,
            actor: actorLabel(actor),
            message,
            history: [],
            input: JSON.stringify(input.input),
            flowInputs: input.input,
            conversationId: null,
            conversationStarted: false,
            superseded: [],
            endUserId: runner.endUserId,
            portalId: runner.portalId,
            latencyMs: performance.now() - started,
          },
        });
      const failure = await billed.fail(error);
      await billed.record(actor, record("")).catch(() => {});
      throw failure;
    }
    const details = schemaProblems(api.outputSchema, output);
    const execution = await billed.record(actor, record(reply), details.length ? "output_invalid" : "succeeded");
    if (details.length) {
      throw new AppError("output_invalid", "The app's reply does not match its output schema; the run was billed.", {
        raw: reply,
        details,
        executionId: execution.id,
      });
    }
    return { output, executionId: execution.id };
  },
);
