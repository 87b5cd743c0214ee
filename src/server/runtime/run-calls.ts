// A run's calls out: model answers and routing (retried, falling back, metered), and knowledge
// searches made once per run.
import { AppError, isAppError } from "@/server/errors";
import { logProviderFailure } from "@/server/observability/operator-log";
import { appendBounded, type RunBound } from "./limits";
import { type AnswerInput, type ChatModel } from "./models";
import type { ReportedUsage, RouteCandidate } from "./model-types";
import { estimateTokens, type CallOutcome, type ModelCall } from "./metering";
import { retrievePassages, type Retrieved } from "./retrieval/passages";
import { routeInputTokens } from "./offline-model";
import { mayRetry, modelsToTry, noteFailure, noteSuccess, retryDelayMs } from "./fallbacks";
import { checkpoint, pause, type RunContext, type TraceEntry } from "./run-context";

/**
 * The passages for a query, searched once per run: the members of a broadcast or sequential app
 * that share a knowledgebase are asked the same message, and get the same passages.
 */
export function retrieveOnce(ctx: RunContext, knowledgebaseIds: string[], query: string): Promise<Retrieved> {
  const key = JSON.stringify([knowledgebaseIds, query]);
  let retrieved = ctx.retrievals.get(key);
  if (!retrieved) {
    retrieved = retrievePassages(ctx.db, ctx.organizationId, knowledgebaseIds, query, ctx.providers);
    ctx.retrievals.set(key, retrieved);
  }
  return retrieved;
}

/** A model call: a cancel or time-out says so, any other failure is the provider's. */
async function modelCall<T>(ctx: RunContext, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isAppError(error)) throw error;
    checkpoint(ctx);
    logProviderFailure({ organizationId: ctx.organizationId, provider: "model", err: error });
    throw new AppError(
      "provider_error",
      "The model provider failed or timed out. It is safe to retry later.",
      {},
      { cause: error },
    );
  }
}

export interface Bound {
  max: number;
  bound: RunBound;
  where: string;
}

/**
 * A model call recorded on the run's meter when it ends, answered or not, with the usage its
 * model reported (tool-calling rounds summed by the model).
 */
async function metered<T>(
  ctx: RunContext,
  model: ChatModel,
  call: (onUsage: (usage: ReportedUsage) => void) => Promise<T>,
): Promise<{ result: T; call: ModelCall }> {
  let usage: ReportedUsage | undefined;
  const onUsage = (reported: ReportedUsage) => (usage = reported);
  try {
    const result = await call(onUsage);
    return { result, call: ctx.meter.record(model, usage, "succeeded") };
  } catch (error) {
    const outcome: CallOutcome = ctx.cancel?.aborted ? "canceled" : "failed";
    ctx.meter.record(model, usage, outcome);
    throw error;
  }
}

/**
 * A model's answer, streamed to `onDelta`, refused as soon as it would outgrow its bound. A call
 * that fails before any output is retried once, then the next of `models` (an agent's fallbacks)
 * is called (fallbacks.ts), skipping a model whose circuit is open; every attempt is on the run's
 * meter. Answers which model answered.
 */
export async function answer(
  ctx: RunContext,
  models: [ChatModel, ...ChatModel[]],
  input: Omit<AnswerInput, "signal" | "onUsage">,
  limit: Bound,
  onDelta?: (text: string) => void,
): Promise<{ text: string; model: ChatModel; tokens: Pick<TraceEntry, "inputTokens" | "outputTokens"> }> {
  const estimated = estimateTokens(
    input.system,
    ...input.knowledge.map((passage) => passage.text),
    ...input.history.map((turn) => turn.content),
    input.message,
  );
  let failure: unknown;
  for (const model of modelsToTry(ctx.organizationId, models)) {
    for (let attempt = 1; attempt <= 2; attempt++) {
      let streamed = false;
      const passOn = (piece: string) => {
        streamed = true;
        onDelta?.(piece);
      };
      try {
        const answered = await answerOnce(ctx, model, input, estimated, limit, passOn);
        noteSuccess(ctx.organizationId, model.id);
        return { ...answered, model };
      } catch (error) {
        // Once output has streamed there is no going back; a run's own failure is not the provider's.
        if (streamed || !mayRetry(error) || ctx.signal.aborted) throw error;
        noteFailure(ctx.organizationId, model.id);
        failure = error;
        ctx.meter.release(model.id, estimated);
        if (attempt === 1) await pause(ctx, retryDelayMs(error));
      }
    }
  }
  throw failure;
}

/**
 * The supervisor's routing call, metered like an answer: its ceiling reserved before it is made
 * (on a priced model), its tokens recorded on the run's meter whether it answers or fails.
 */
export async function route(
  ctx: RunContext,
  model: ChatModel,
  input: { message: string; instructions: string; candidates: RouteCandidate[] },
): Promise<{ picked: string[]; tokens: Pick<TraceEntry, "inputTokens" | "outputTokens"> }> {
  await ctx.meter.reserve(model.id, routeInputTokens(input));
  return modelCall(ctx, async () => {
    const { result, call } = await metered(ctx, model, (onUsage) =>
      model.route({ ...input, signal: ctx.signal, onUsage }),
    );
    return { picked: result, tokens: { inputTokens: call.inputTokens, outputTokens: call.outputTokens } };
  });
}

/** One call of one model: a priced model's ceiling is reserved first (a refusal makes no call), and its output capped at it. */
async function answerOnce(
  ctx: RunContext,
  model: ChatModel,
  input: Omit<AnswerInput, "signal" | "onUsage">,
  estimated: number,
  limit: Bound,
  onDelta: (text: string) => void,
): Promise<{ text: string; tokens: Pick<TraceEntry, "inputTokens" | "outputTokens"> }> {
  let call: ModelCall | undefined;
  const maxOutputTokens = await ctx.meter.reserve(model.id, estimated);
  const beforeStep = async (tokens: number) => void (await ctx.meter.reserve(model.id, tokens));
  const text = await modelCall(ctx, async () => {
    const done = await metered(ctx, model, async (onUsage) => {
      let text = "";
      await model.answer({ ...input, signal: ctx.signal, onUsage, maxOutputTokens, beforeStep }, (piece) => {
        text = appendBounded(text, piece, limit.max, limit.bound, limit.where);
        onDelta(piece);
      });
      checkpoint(ctx);
      return text;
    });
    call = done.call;
    return done.result;
  });
  return { text, tokens: { inputTokens: call?.inputTokens, outputTokens: call?.outputTokens } };
}
