// The models agents run on. Every model answers (streaming), routes a message to the members
// best suited to it, and grades an output against an expected behaviour. The built-in offline
// model does this by word matching, with no network; provider models do it with prompts
// through the AI SDK against any OpenAI-compatible endpoint configured by environment.
import { env } from "@/env";

export interface Passage {
  /** Where the passage comes from, for citations: a page or source title. */
  title: string;
  text: string;
}

export interface Turn {
  role: "user" | "assistant";
  content: string;
}

export interface AnswerInput {
  system: string;
  history: Turn[];
  message: string;
  knowledge: Passage[];
  signal?: AbortSignal;
}

export interface RouteCandidate {
  id: string;
  name: string;
  description: string;
}

export interface Grade {
  passed: boolean;
  reason: string;
}

export interface ChatModel {
  id: string;
  name: string;
  provider: string;
  /** The answer as it is produced, piece by piece. */
  answer(input: AnswerInput): AsyncIterable<string>;
  /** Ids of the candidates to consult for the message, best first; at least one. */
  route(input: { message: string; instructions: string; candidates: RouteCandidate[]; signal?: AbortSignal }): Promise<string[]>;
  grade(input: { input: string; output: string; expectedBehavior: string; signal?: AbortSignal }): Promise<Grade>;
}

export const BUILTIN_MODEL_ID = "atrium-offline";

export interface ModelInfo {
  id: string;
  name: string;
  provider: string;
}

/** Every model an agent may name: the built-in one, then the configured provider's. */
export function availableModels(): ModelInfo[] {
  const config = env();
  const provider = config.MODEL_PROVIDER_NAME;
  return [
    { id: BUILTIN_MODEL_ID, name: "Atrium offline (extractive, no network)", provider: "builtin" },
    ...(config.MODEL_PROVIDER_BASE_URL ? config.MODEL_PROVIDER_MODELS.map((id) => ({ id, name: id, provider })) : []),
  ];
}

/** The model for an id from availableModels(); unknown ids fall back to the built-in model. */
export async function modelFor(id: string | undefined): Promise<ChatModel> {
  const info = availableModels().find((model) => model.id === id && model.provider !== "builtin");
  if (info) {
    const { providerModel } = await import("./provider-model");
    return providerModel(info);
  }
  const { offlineModel } = await import("./offline-model");
  return offlineModel;
}
