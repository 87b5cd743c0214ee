// What every model is, apart from which models exist: the shapes the built-in offline model,
// provider models and the runner share. Kept apart from models.ts (which picks a model) so that
// the model implementations import no module that imports them.

export const BUILTIN_MODEL_ID = "atrium-offline";

/** What one model call used, as the model reports it; a count left out was not reported (runtime/metering.ts). */
export interface ReportedUsage {
  inputTokens?: number;
  outputTokens?: number;
}

/** Told what a call used once it ends, answered or failed (tool-calling rounds summed). */
export type UsageListener = (usage: ReportedUsage) => void;

export interface Passage {
  /** Where the passage comes from, for citations: a page or source title. */
  title: string;
  text: string;
  /** Where in the organization's knowledge it was found (passages from retrieval only). */
  from?: {
    kind: "page" | "source" | "attachment";
    id: string;
    /** Null for a file attached to the turn. */
    knowledgebaseId: string | null;
    title: string;
    heading: string;
  };
}

/** An image attached to a conversation turn. */
export interface TurnImage {
  mediaType: string;
  data: Uint8Array;
}

export interface Turn {
  role: "user" | "assistant";
  content: string;
}

/** A tool a model may call while it answers: a flow, a knowledge search, an MCP tool, a built-in. */
export interface ModelTool {
  /** Unique among the tools of one answer; letters, digits, `_` and `-` (what providers accept). */
  name: string;
  description: string;
  /** JSON Schema of the arguments (an object schema). */
  parameters: Record<string, unknown>;
  /** Runs the tool; the text is handed back to the model. Errors become text the model reads. */
  run(args: Record<string, unknown>, signal: AbortSignal): Promise<string>;
}

export interface AnswerInput {
  system: string;
  history: Turn[];
  message: string;
  knowledge: Passage[];
  /** The number a passage is cited by as `[n]` (runtime/citations.ts); null for one that is not knowledge. */
  cite?: (passage: Passage) => number | null;
  /** The offline model: when no sentence matches the message, answer with the knowledge's first ones (a flow step working on text). */
  leadWhenUnmatched?: boolean;
  /** Whether the agent has knowledge attached, even when none of it matched the message. */
  hasKnowledge?: boolean;
  /** Images attached to the turn (only models that accept images are given any). */
  images?: TurnImage[];
  /** Tools the model may call (provider models only; the offline model does not call tools). */
  tools?: ModelTool[];
  /** Model calls one answer may make, tool rounds included. */
  maxSteps?: number;
  signal?: AbortSignal;
  onUsage?: UsageListener;
  /** The most output tokens each provider call may produce (a priced model's reserved maximum). */
  maxOutputTokens?: number;
  /** Before each tool-calling round after the first, with its estimated input: reserves its ceiling (or throws). */
  beforeStep?: (estimatedInputTokens: number) => Promise<void>;
}

export interface RouteCandidate {
  id: string;
  name: string;
  description: string;
  /** What the member's knowledge holds about the message, if it has any (the offline router reads it). */
  knowledge?: string;
}

export interface Grade {
  passed: boolean;
  reason: string;
}

export interface ModelInfo {
  id: string;
  name: string;
  provider: string;
  /** Whether images attached to a turn can be given to it. */
  acceptsImages: boolean;
}

export interface ChatModel extends ModelInfo {
  /** Whether the model calls tools natively (the offline model matches words instead). */
  callsTools: boolean;
  /**
   * The answer handed to `onText` piece by piece as it is produced, resolving at its end. What
   * `onText` throws ends the call (a provider's request is hung up) and rejects with it.
   */
  answer(input: AnswerInput, onText: (text: string) => void): Promise<void>;
  /** Ids of the candidates to consult for the message, best first; at least one. */
  route(input: {
    message: string;
    instructions: string;
    candidates: RouteCandidate[];
    signal?: AbortSignal;
    onUsage?: UsageListener;
  }): Promise<string[]>;
  grade(input: {
    input: string;
    output: string;
    expectedBehavior: string;
    /** The grading's output cap when its call was reserved (a priced model). */
    maxOutputTokens?: number;
    signal?: AbortSignal;
    onUsage?: UsageListener;
  }): Promise<Grade>;
}

/** An organization's embedding model, for retrieval by meaning. */
export interface EmbeddingModel {
  /** `<provider slug>/<model id>`: stored with the vectors, so a change of model is noticed. */
  modelKey: string;
  /** `retries`: the provider call's own retries (the embedding queue retries later instead). */
  embed(texts: string[], options?: { signal?: AbortSignal; retries?: number }): Promise<number[][]>;
}

/** A chat model asked for one short reply, with no tools and no retry (reranking search results). */
export interface CompletionModel {
  /** `<provider slug>/<model id>`, as agents name it. */
  id: string;
  complete(input: { system: string; prompt: string; maxOutputTokens: number; signal: AbortSignal }): Promise<string>;
}
