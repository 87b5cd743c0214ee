// Provider models: any OpenAI-compatible endpoint (MODEL_PROVIDER_BASE_URL and _API_KEY),
// through the AI SDK. Answers stream token by token; routing and grading ask for a small JSON
// reply and fall back to the offline model's word matching if the reply is not usable.
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, streamText } from "ai";
import { env } from "@/env";
import { jsonIn } from "./json-in-text";
import { RUN_LIMITS } from "./limits";
import type { ChatModel, Grade, ModelInfo, Passage } from "./models";
import { offlineGrade, offlineRoute } from "./offline-model";

function knowledgeBlock(knowledge: Passage[]): string {
  if (knowledge.length === 0) return "";
  const passages = knowledge.map((passage, index) => `[${index + 1}] ${passage.title}\n${passage.text}`).join("\n\n");
  return `\n\nAnswer from this knowledge when it is relevant, and cite the titles you used:\n\n${passages}`;
}

/** The caller's signal, and the provider's own time bound per call (a failure the caller reports as provider_error). */
function callSignal(signal: AbortSignal | undefined): AbortSignal {
  const timeout = AbortSignal.timeout(RUN_LIMITS.providerCallMs);
  return signal ? AbortSignal.any([signal, timeout]) : timeout;
}

export function providerModel(info: ModelInfo): ChatModel {
  const config = env();
  const provider = createOpenAICompatible({ name: info.provider, baseURL: config.MODEL_PROVIDER_BASE_URL!, apiKey: config.MODEL_PROVIDER_API_KEY });
  const model = provider.chatModel(info.id);

  return {
    ...info,
    async *answer({ system, history, message, knowledge, signal }) {
      const abortSignal = callSignal(signal);
      const result = streamText({
        model,
        system: system + knowledgeBlock(knowledge),
        messages: [...history, { role: "user", content: message }],
        abortSignal,
        maxRetries: 1,
      });
      for await (const part of result.fullStream) {
        if (part.type === "text-delta") yield part.text;
        else if (part.type === "error") throw part.error instanceof Error ? part.error : new Error(String(part.error));
      }
      // An aborted stream just ends: a cut-off answer is a failure, never a reply.
      if (abortSignal.aborted) throw new Error("The provider call was aborted or timed out.");
    },

    async route({ message, instructions, candidates, signal }) {
      const list = candidates.map((c) => `- id: ${c.id}\n  name: ${c.name}\n  description: ${c.description}`).join("\n");
      const { text } = await generateText({
        model,
        abortSignal: callSignal(signal),
        maxRetries: 1,
        system: `${instructions}\nYou route a user's message to the team members best suited to answer it. Reply with a JSON array of member ids, best first, and nothing else.`,
        prompt: `Members:\n${list}\n\nMessage: ${message}`,
      });
      const ids = jsonIn(text);
      const known = Array.isArray(ids) ? ids.filter((id): id is string => candidates.some((c) => c.id === id)) : [];
      return known.length > 0 ? known : offlineRoute(message, candidates);
    },

    async grade({ input, output, expectedBehavior, signal }): Promise<Grade> {
      const { text } = await generateText({
        model,
        abortSignal: callSignal(signal),
        maxRetries: 1,
        system: 'You grade an assistant\'s output against the expected behaviour. Reply with JSON {"passed": boolean, "reason": string} and nothing else.',
        prompt: `Input: ${input}\n\nExpected behaviour: ${expectedBehavior}\n\nOutput: ${output}`,
      });
      const verdict = jsonIn(text) as { passed?: unknown; reason?: unknown } | undefined;
      if (verdict && typeof verdict.passed === "boolean") {
        return { passed: verdict.passed, reason: typeof verdict.reason === "string" ? verdict.reason : "" };
      }
      return offlineGrade(output, expectedBehavior);
    },
  };
}
