// App transactions: JSON in, JSON out, both checked against the app's published JSON Schemas.
// A reply that does not match the output schema is output_invalid (502) and still billed.
import type { Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError, invalidRequest, isAppError, toAppError } from "@/server/errors";
import { JsonTooDeep, jsonObjectIn } from "@/server/runtime/json-in-text";
import { schemaProblems } from "@/server/runtime/json-schema";
import { RUN_LIMITS, runLimitExceeded } from "@/server/runtime/limits";
import { loadLiveApp } from "@/server/runtime/load";
import { newRunContext, runApp } from "@/server/runtime/run";
import { chargedPool, chargeRunCredit, refundRunCredit } from "./credits";
import { recordExecution } from "./executions";
import { runFor } from "./portal-access";

export const TRANSACTION_CREDITS = 1;

/** The JSON object a reply holds, or {"reply": text}; deeper than the run's bound is a run limit (nothing downstream recurses that far). */
function replyObject(reply: string): Record<string, unknown> {
  try {
    return jsonObjectIn(reply, RUN_LIMITS.outputJsonDepth) ?? { reply };
  } catch (error) {
    if (error instanceof JsonTooDeep) throw runLimitExceeded("output depth");
    throw error;
  }
}

/**
 * Refusals in the contract's order: the app (not_found, service_disabled), the end user it is
 * for (not_found), the input, then credits (402); nothing runs or is charged after a refusal.
 */
export const transact = guarded(
  { scope: "apps:execute" },
  async function transact(db: Db, actor: Actor, input: { appId: string; input: Record<string, unknown>; endUserId?: string; portalId?: string }) {
    const app = await loadLiveApp(db, actor, input.appId);
    const api = app.app.document.api;
    if (!api.transactionEnabled) throw new AppError("service_disabled", "Transaction is turned off in this app's published API config; republish it with transactions enabled.");
    const runner = await runFor(db, actor, input.appId, input);
    const problems = schemaProblems(api.inputSchema, input.input);
    if (problems.length) throw invalidRequest(problems.map((p) => ({ path: `input${p.pointer.replace(/\//g, ".")}`.replace(/\.$/, ""), message: p.message })));

    const charge = await chargeRunCredit(db, actor.organizationId, runner.endUserId, TRANSACTION_CREDITS, { appId: input.appId, portalId: runner.portalId });
    const started = performance.now();
    const ctx = newRunContext(db, actor.organizationId);
    const message = `${JSON.stringify(input.input)}\n\nReply with only a JSON object matching this JSON Schema:\n${JSON.stringify(api.outputSchema)}`;
    let reply: string;
    let output: Record<string, unknown>;
    try {
      reply = await runApp(ctx, app, message, [], { flowInputs: input.input });
      // A reply that holds no JSON object is taken as {"reply": text}.
      output = replyObject(reply);
    } catch (error) {
      const failure = toAppError(error);
      // A run stopped by its bounds is billed (it ran); a provider failure produced nothing for the caller.
      const billed = failure.code === "run_limit_exceeded";
      if (!billed) await refundRunCredit(db, charge);
      await recordExecution(db, actor, {
        kind: "transaction",
        itemId: input.appId,
        itemKind: "app",
        versionId: app.versionId,
        status: "failed",
        credits: billed ? TRANSACTION_CREDITS : 0,
        latencyMs: performance.now() - started,
        input: JSON.stringify(input.input),
        output: "",
        error: failure.message,
        trace: ctx.trace,
        endUserId: runner.endUserId,
        portalId: runner.portalId,
        subscriptionId: chargedPool(charge),
      }).catch(() => {});
      if (isAppError(error)) throw error;
      throw new AppError("server_error", "The run failed on our side; nothing was charged. It is safe to retry.", {}, { cause: error });
    }
    const details = schemaProblems(api.outputSchema, output);
    const execution = await recordExecution(db, actor, {
      kind: "transaction",
      itemId: input.appId,
      itemKind: "app",
      versionId: app.versionId,
      status: details.length ? "output_invalid" : "succeeded",
      credits: TRANSACTION_CREDITS,
      latencyMs: performance.now() - started,
      input: JSON.stringify(input.input),
      output: reply,
      trace: ctx.trace,
      endUserId: runner.endUserId,
      portalId: runner.portalId,
      subscriptionId: chargedPool(charge),
    });
    if (details.length) {
      throw new AppError("output_invalid", "The app's reply does not match its output schema; the run was billed.", { raw: reply, details, executionId: execution.id });
    }
    return { output, executionId: execution.id };
  },
);
