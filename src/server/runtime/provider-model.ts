// Provider models, through the AI SDK: an OpenAI-compatible endpoint (the operator's, set by
// environment, or an organization's) or Anthropic. Answers stream token by token and call the
// tools they are given in a bounded loop; an answer without tools or images skips `streamText`'s
// layers (the cost of a long stream, issue 53): an OpenAI-compatible reply is read by
// openai-stream.ts, Anthropic's as the provider model's stream parts. Routing and grading ask for a small JSON reply and fall back to the offline model's word
// matching if the reply is not usable.
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV3, LanguageModelV3Prompt, LanguageModelV3Usage } from "@ai-sdk/provider";
import { context, trace } from "@opentelemetry/api";
import {
  embedMany,
  generateText,
  jsonSchema,
  stepCountIs,
  streamText,
  tool,
  type LanguageModelUsage,
  type ToolSet,
} from "ai";
import { isAppError } from "@/server/errors";
import { jsonIn } from "./json-in-text";
import { RUN_LIMITS, runLimitExceeded } from "./limits";
import { addUsage, estimateTokens } from "./metering";
import type {
  ChatModel,
  CompletionModel,
  EmbeddingModel,
  Grade,
  ModelInfo,
  ModelTool,
  Passage,
  ReportedUsage,
  AnswerInput,
  Turn,
} from "./model-types";
import { offlineGrade, offlineRoute } from "./offline-model";
import { openAICompatibleParts, type PlainPart } from "./openai-stream";
import { failSpan, propagatingFetch, tracer, tracingEnabled } from "@/server/observability/tracing";

export type ProviderKind = "openai-compatible" | "anthropic";

/** Where a provider model is served and how to authenticate; the key is already opened. */
export interface ProviderConnection {
  /** The provider's name in model ids and errors (an organization provider's slug). */
  name: string;
  kind: ProviderKind;
  baseURL?: string;
  apiKey?: string;
  /** Checks each request's URL before it leaves (organization providers: the SSRF guard). */
  fetch?: typeof globalThis.fetch;
}

/**
 * The knowledge in the system prompt: each passage numbered as the run cites it (`cite`, else by
 * its place), a team member's reply by its name only.
 */
function knowledgeBlock(knowledge: Passage[], cite?: (passage: Passage) => number | null): string {
  if (knowledge.length === 0) return "";
  const numbered = knowledge.map((passage, index) => ({ passage, n: cite ? cite(passage) : index + 1 }));
  const passages = numbered
    .map(({ passage, n }) => `${n === null ? "" : `[${n}] `}${passage.title}\n${passage.text}`)
    .join("\n\n");
  const citing = numbered.some(({ n }) => n !== null)
    ? " Cite each numbered passage you use by its number in square brackets, like [1], right after the sentence it supports; never cite a number that is not listed."
    : "";
  return `\n\nAnswer from this knowledge when it is relevant.${citing}\n\n${passages}`;
}

/**
 * The AI SDK's own spans of a provider call while tracing is on: model, tokens, timing. Never
 * the prompts or answers: they are end users' words and the organization's knowledge.
 */
function telemetry(functionId: string) {
  return { isEnabled: tracingEnabled(), functionId, recordInputs: false, recordOutputs: false };
}

/** The caller's signal, and the provider's own time bound per call (a failure the caller reports as provider_error). */
function callSignal(signal: AbortSignal | undefined): AbortSignal {
  const timeout = AbortSignal.timeout(RUN_LIMITS.providerCallMs);
  return signal ? AbortSignal.any([signal, timeout]) : timeout;
}

/** The SDK's usage as a report: a count the provider left out stays out. */
function reported(usage: LanguageModelUsage | undefined): ReportedUsage {
  return { inputTokens: usage?.inputTokens, outputTokens: usage?.outputTokens };
}

/** The provider model's own usage as a report (what `streamText` reads from it). */
function reportedParts(usage: LanguageModelV3Usage): ReportedUsage {
  return { inputTokens: usage.inputTokens.total, outputTokens: usage.outputTokens.total };
}

/** A provider model's stream parts (Anthropic's), handed on as a plain answer's: its text, its end, a failure thrown. */
async function modelParts(
  model: LanguageModelV3,
  prompt: LanguageModelV3Prompt,
  maxOutputTokens: number | undefined,
  abortSignal: AbortSignal,
  onPart: (part: PlainPart) => void,
): Promise<void> {
  const { stream } = await model.doStream({
    prompt,
    abortSignal,
    ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
  });
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value: part } = await reader.read();
      if (done) return;
      if (part.type === "text-delta") {
        if (part.delta.length > 0) onPart({ type: "text", text: part.delta });
      } else if (part.type === "finish") {
        onPart({ type: "finish", usage: reportedParts(part.usage), finishReason: part.finishReason.unified });
      } else if (part.type === "error") {
        throw part.error instanceof Error ? part.error : new Error(String(part.error));
      }
    }
  } finally {
    // A consumer that stops early (a run bound), or a failure, hangs up on the provider.
    void reader.cancel().catch(() => undefined);
  }
}

const ABORTED = "The provider call was aborted or timed out.";

/** A plain answer's one provider call, handing on its parts as they are read. */
type PlainCall = (abortSignal: AbortSignal, onPart: (part: PlainPart) => void) => Promise<void>;

/**
 * An answer without tools or images: one provider call, its text handed to `onText` as the
 * provider sends it rather than through `streamText`'s layers or a chain of async generators
 * (issue 53). What it hands on and reports is what `streamText` gave for the same call (its text,
 * the call's usage once it ends, its failures, an abort as a failure), and while tracing is on it
 * makes the span `streamText` made, around the provider's request.
 */
async function plainAnswer(
  model: { provider: string; modelId: string },
  call: PlainCall,
  options: { maxOutputTokens?: number; signal?: AbortSignal; onUsage?: AnswerInput["onUsage"] },
  onText: (text: string) => void,
): Promise<void> {
  const abortSignal = callSignal(options.signal);
  const span = tracingEnabled()
    ? tracer().startSpan("ai.streamText", {
        attributes: {
          "operation.name": "ai.streamText answer",
          "ai.operationId": "ai.streamText",
          "ai.telemetry.functionId": "answer",
          "ai.model.provider": model.provider,
          "ai.model.id": model.modelId,
          ...(options.maxOutputTokens !== undefined ? { "ai.settings.maxOutputTokens": options.maxOutputTokens } : {}),
        },
      })
    : undefined;
  let usage: ReportedUsage | undefined;
  const onPart = (part: PlainPart) => {
    if (part.type === "text") return onText(part.text);
    usage = part.usage;
    span?.setAttributes({
      "ai.response.finishReason": part.finishReason,
      ...(usage.inputTokens !== undefined ? { "ai.usage.inputTokens": usage.inputTokens } : {}),
      ...(usage.outputTokens !== undefined ? { "ai.usage.outputTokens": usage.outputTokens } : {}),
    });
  };
  try {
    // The provider's request goes out inside the span, so its `traceparent` names it.
    await (span
      ? context.with(trace.setSpan(context.active(), span), () => call(abortSignal, onPart))
      : call(abortSignal, onPart));
    // An aborted stream may just end: a cut-off answer is a failure, never a reply.
    if (abortSignal.aborted) throw new Error(ABORTED);
  } catch (error) {
    const failure = abortSignal.aborted ? new Error(ABORTED) : error;
    if (span) failSpan(span, failure);
    throw failure;
  } finally {
    if (usage) options.onUsage?.(usage);
    span?.end();
  }
}

export function languageModel(connection: ProviderConnection, modelId: string): LanguageModelV3 {
  if (connection.kind === "anthropic") {
    return createAnthropic({
      baseURL: connection.baseURL,
      apiKey: connection.apiKey ?? "",
      fetch: propagatingFetch(connection.fetch),
    })(modelId);
  }
  return createOpenAICompatible({
    name: connection.name,
    baseURL: connection.baseURL!,
    apiKey: connection.apiKey,
    fetch: propagatingFetch(connection.fetch),
    // Streamed answers report their tokens too (`stream_options.include_usage`).
    includeUsage: true,
  }).chatModel(modelId);
}

function toolSet(tools: ModelTool[]): ToolSet {
  return Object.fromEntries(
    tools.map((t) => [
      t.name,
      tool({
        description: t.description,
        inputSchema: jsonSchema<Record<string, unknown>>(t.parameters as Parameters<typeof jsonSchema>[0]),
        execute: (args: Record<string, unknown>, { abortSignal }) =>
          t.run(args ?? {}, abortSignal ?? new AbortController().signal),
      }),
    ]),
  );
}

/**
 * The plain answer's one provider call: an OpenAI-compatible server's own stream, read directly;
 * any other provider's through its SDK model.
 */
function plainCall(
  connection: ProviderConnection,
  model: LanguageModelV3,
  upstreamId: string,
  request: { system: string; turns: Turn[]; maxOutputTokens: number | undefined },
): PlainCall {
  const { system, turns, maxOutputTokens } = request;
  if (connection.kind === "openai-compatible")
    return (abortSignal, onPart) =>
      openAICompatibleParts(
        {
          baseURL: connection.baseURL!,
          apiKey: connection.apiKey,
          fetch: propagatingFetch(connection.fetch),
          modelId: upstreamId,
          system,
          turns,
          maxOutputTokens,
          signal: abortSignal,
        },
        onPart,
      );
  const prompt: LanguageModelV3Prompt = [
    { role: "system", content: system },
    ...turns.map((turn) => {
      const content = [{ type: "text" as const, text: turn.content }];
      return turn.role === "user" ? { role: "user" as const, content } : { role: "assistant" as const, content };
    }),
  ];
  return (abortSignal, onPart) => modelParts(model, prompt, maxOutputTokens, abortSignal, onPart);
}

/**
 * An answer with tools or images, through `streamText`: each tool-calling round is a provider call
 * of its own, with its usage and its ceiling reserved before it (`beforeStep`). `system` already
 * holds the knowledge.
 */
async function streamedAnswer(
  model: LanguageModelV3,
  info: ModelInfo,
  input: AnswerInput,
  onText: (text: string) => void,
): Promise<void> {
  const {
    system,
    history,
    message,
    images = [],
    tools = [],
    maxSteps = RUN_LIMITS.toolSteps,
    signal,
    onUsage,
    maxOutputTokens,
    beforeStep,
  } = input;
  const abortSignal = callSignal(signal);
  const result = streamText({
    model,
    experimental_telemetry: telemetry("answer"),
    system,
    messages: [
      ...history,
      images.length === 0
        ? { role: "user", content: message }
        : {
            role: "user",
            content: [
              { type: "text", text: message },
              ...images.map((image) => ({ type: "image" as const, image: image.data, mediaType: image.mediaType })),
            ],
          },
    ],
    ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
    ...(tools.length > 0
      ? {
          tools: toolSet(tools),
          stopWhen: stepCountIs(maxSteps),
          prepareStep: async ({ stepNumber, messages }) => {
            // Each round is a call of its own: its ceiling is reserved before it is made.
            if (stepNumber > 0) await beforeStep?.(estimateTokens(system, JSON.stringify(messages)));
            // The last call may not ask for tools: it has to answer with what it found.
            return stepNumber >= maxSteps - 1 ? { toolChoice: "none" as const } : undefined;
          },
        }
      : {}),
    abortSignal,
    // The runner retries, and falls back, itself (runtime/fallbacks.ts): every attempt is metered.
    maxRetries: 0,
    // Failures arrive as `error` parts below; the SDK's default would log them (request and all).
    onError: () => undefined,
  });
  let lastFinish: string | undefined;
  // Each round of a tool-calling answer is a provider call with its own usage: they add up.
  let usage: ReportedUsage | undefined;
  try {
    for await (const part of result.fullStream) {
      if (part.type === "text-delta") onText(part.text);
      else if (part.type === "finish-step") {
        lastFinish = part.finishReason;
        usage = addUsage(usage, reported(part.usage));
      }
      // A run bound or cancel inside a tool ends the run; other tool failures went back to the model.
      else if (part.type === "tool-error" && isAppError(part.error)) throw part.error;
      else if (part.type === "error") throw part.error instanceof Error ? part.error : new Error(String(part.error));
    }
  } finally {
    if (usage) onUsage?.(usage);
  }
  // An aborted stream just ends: a cut-off answer is a failure, never a reply.
  if (abortSignal.aborted) throw new Error(ABORTED);
  if (lastFinish === "tool-calls") throw runLimitExceeded("tool steps", `model "${info.id}"`);
}

/** `info.id` is the id agents name; `upstreamId` the one the provider knows. */
export function providerModel(info: ModelInfo, connection: ProviderConnection, upstreamId: string): ChatModel {
  const model = languageModel(connection, upstreamId);

  return {
    ...info,
    callsTools: true,
    answer(input, onText) {
      const system = input.system + knowledgeBlock(input.knowledge, input.cite);
      const { images = [], tools = [], maxOutputTokens, signal, onUsage } = input;
      if (tools.length > 0 || images.length > 0) return streamedAnswer(model, info, { ...input, system }, onText);
      const turns = [...input.history, { role: "user" as const, content: input.message }];
      const call = plainCall(connection, model, upstreamId, { system, turns, maxOutputTokens });
      return plainAnswer(model, call, { maxOutputTokens, signal, onUsage }, onText);
    },

    async route({ message, instructions, candidates, signal, onUsage }) {
      const list = candidates
        .map((c) => `- id: ${c.id}\n  name: ${c.name}\n  description: ${c.description}`)
        .join("\n");
      const { text, totalUsage } = await generateText({
        model,
        experimental_telemetry: telemetry("generate"),
        abortSignal: callSignal(signal),
        maxRetries: 1,
        system: `${instructions}\nYou route a user's message to the team members best suited to answer it. Reply with a JSON array of member ids, best first, and nothing else.`,
        prompt: `Members:\n${list}\n\nMessage: ${message}`,
      });
      onUsage?.(reported(totalUsage));
      const ids = jsonIn(text);
      const known = Array.isArray(ids) ? ids.filter((id): id is string => candidates.some((c) => c.id === id)) : [];
      return known.length > 0 ? known : offlineRoute(message, candidates);
    },

    async grade({ input, output, expectedBehavior, maxOutputTokens, signal, onUsage }): Promise<Grade> {
      const { text, totalUsage } = await generateText({
        model,
        experimental_telemetry: telemetry("generate"),
        abortSignal: callSignal(signal),
        maxRetries: 1,
        ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
        system:
          'You grade an assistant\'s output against the expected behaviour. Reply with JSON {"passed": boolean, "reason": string} and nothing else.',
        prompt: `Input: ${input}\n\nExpected behaviour: ${expectedBehavior}\n\nOutput: ${output}`,
      });
      onUsage?.(reported(totalUsage));
      const verdict = jsonIn(text) as { passed?: unknown; reason?: unknown } | undefined;
      if (verdict && typeof verdict.passed === "boolean") {
        return { passed: verdict.passed, reason: typeof verdict.reason === "string" ? verdict.reason : "" };
      }
      return offlineGrade(output, expectedBehavior);
    },
  };
}

/** An OpenAI-compatible embedding model (Anthropic offers none). */
export function providerEmbedding(connection: ProviderConnection, modelId: string): EmbeddingModel {
  const model = createOpenAICompatible({
    name: connection.name,
    baseURL: connection.baseURL!,
    apiKey: connection.apiKey,
    fetch: connection.fetch,
  }).embeddingModel(modelId);
  return {
    modelKey: `${connection.name}/${modelId}`,
    async embed(texts, { signal, retries = 1 } = {}) {
      if (texts.length === 0) return [];
      const { embeddings } = await embedMany({
        model,
        values: texts,
        abortSignal: callSignal(signal),
        maxRetries: retries,
        experimental_telemetry: telemetry("embed"),
      });
      return embeddings;
    },
  };
}

/**
 * One reply of a chat model within the caller's signal alone: no retry, since a searcher waits
 * and the ranking it would change stands in at once.
 */
export function providerCompletion(connection: ProviderConnection, modelId: string): CompletionModel {
  const model = languageModel(connection, modelId);
  return {
    id: `${connection.name}/${modelId}`,
    async complete({ system, prompt, maxOutputTokens, signal }) {
      const { text } = await generateText({
        model,
        experimental_telemetry: telemetry("rerank"),
        abortSignal: signal,
        maxRetries: 0,
        maxOutputTokens,
        system,
        prompt,
      });
      return text;
    },
  };
}
