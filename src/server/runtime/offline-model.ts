// The built-in model: extractive and honest. It answers with the sentences of the agent's
// retrieved knowledge that best match the message (each cited by its passage's number), routes by
// matching the message against each member's description, and grades by checking that the
// output covers the expected behaviour's key terms. No network, no randomness.
import type { AnswerInput, ChatModel, Grade, Passage, RouteCandidate } from "./model-types";
import { BUILTIN_MODEL_ID } from "./model-types";
import { withMarker } from "./citations";
import { estimateTokens } from "./metering";
import { overlap, sentences, terms } from "./text";

const MAX_SENTENCES = 3;
/** What an end user reads when there is nothing to answer from: plain words, no internals. */
export const NO_KNOWLEDGE = "I can only answer from this assistant's knowledge, and it doesn't have any yet.";
export const NOTHING_FOUND = "I couldn't find anything about that in what I know. Try asking in other words.";
/** Share of the expected behaviour's key terms the output must contain to pass. */
const PASS_SHARE = 0.5;

/** Lower-cased words only, to tell whether a sentence repeats the question. */
function plain(text: string): string {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).join(" ");
}

/**
 * The sentences that best match the message, never one the message already holds (an answer
 * does not echo its question). With `lead`, when none matches, the knowledge's first sentences.
 */
function bestSentences(message: string, knowledge: Passage[], lead = false): { sentence: string; passage: Passage }[] {
  const asked = ` ${plain(message)} `;
  const candidates = knowledge.flatMap((passage) =>
    sentences(passage.text)
      .filter((sentence) => plain(sentence) && !asked.includes(` ${plain(sentence)} `))
      .map((sentence) => ({ sentence, passage, score: overlap(message, sentence) })),
  );
  const matched = candidates.filter((entry) => entry.score > 0).sort((a, b) => b.score - a.score);
  // The first sentences stand for the text, but a question in it is not an answer.
  const opening = candidates.filter((entry) => !entry.sentence.endsWith("?"));
  return (matched.length === 0 && lead ? opening : matched).slice(0, MAX_SENTENCES);
}

/** The best sentences of the knowledge, each cited `[n]` when `cite` numbers its passage. */
export function offlineAnswer({
  message,
  knowledge,
  hasKnowledge,
  cite,
  leadWhenUnmatched,
}: Pick<AnswerInput, "message" | "knowledge" | "hasKnowledge" | "cite" | "leadWhenUnmatched">): string {
  const found = bestSentences(message, knowledge, leadWhenUnmatched);
  if (found.length === 0) return knowledge.length === 0 && !hasKnowledge ? NO_KNOWLEDGE : NOTHING_FOUND;
  return found.map((entry) => withMarker(entry.sentence, cite?.(entry.passage) ?? null)).join(" ");
}

/**
 * The members whose description matches the message; else those whose knowledge holds its words
 * (a question about a document need not name what the member is for); else the first.
 */
export function offlineRoute(message: string, candidates: RouteCandidate[]): string[] {
  const scored = candidates.map((candidate, index) => ({
    id: candidate.id,
    index,
    score: overlap(message, `${candidate.name} ${candidate.description}`),
    knows: candidate.knowledge ? overlap(message, candidate.knowledge) : 0,
  }));
  const byDescription = scored
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index);
  if (byDescription.length > 0) return byDescription.map((entry) => entry.id);
  const byKnowledge = scored.filter((entry) => entry.knows > 0).sort((a, b) => b.knows - a.knows || a.index - b.index);
  return (byKnowledge.length > 0 ? byKnowledge : scored.slice(0, 1)).map((entry) => entry.id);
}

/**
 * What routing reads, in tokens (an estimate): the instructions, the message and each candidate as
 * it is described. The built-in router reports it; a run reserves a priced router's call on it.
 */
export function routeInputTokens(input: { message: string; instructions: string; candidates: RouteCandidate[] }) {
  return estimateTokens(
    input.instructions,
    input.message,
    ...input.candidates.map((c) => `${c.id} ${c.name} ${c.description} ${c.knowledge ?? ""}`),
  );
}

export function offlineGrade(output: string, expectedBehavior: string): Grade {
  const expected = [...new Set(terms(expectedBehavior))];
  if (expected.length === 0)
    return { passed: output.trim().length > 0, reason: "No expected behaviour to check; the output is not empty." };
  const present = new Set(terms(output));
  const missing = expected.filter((term) => !present.has(term));
  const share = (expected.length - missing.length) / expected.length;
  return share >= PASS_SHARE
    ? { passed: true, reason: `The output covers ${Math.round(share * 100)}% of the expected behaviour's key terms.` }
    : {
        passed: false,
        reason: `The output misses key terms of the expected behaviour: ${missing.slice(0, 8).join(", ")}.`,
      };
}

export const offlineModel: ChatModel = {
  id: BUILTIN_MODEL_ID,
  name: "Atrium offline (extractive, no network)",
  provider: "builtin",
  callsTools: false,
  acceptsImages: false,
  async *answer(input) {
    // What it reads and writes is counted as a provider would count it (an estimate), so usage shows real figures.
    const read = estimateTokens(
      input.system,
      input.message,
      ...input.history.map((turn) => turn.content),
      ...input.knowledge.map((passage) => `${passage.title}\n${passage.text}`),
    );
    let written = "";
    try {
      // Word by word, so streaming clients see it arrive as they would from a provider.
      for (const piece of offlineAnswer(input).split(/(?<=\s)/)) {
        if (input.signal?.aborted) return;
        written += piece;
        yield piece;
      }
    } finally {
      input.onUsage?.({ inputTokens: read, outputTokens: estimateTokens(written) });
    }
  },
  async route(input) {
    const picked = offlineRoute(input.message, input.candidates);
    input.onUsage?.({ inputTokens: routeInputTokens(input), outputTokens: estimateTokens(JSON.stringify(picked)) });
    return picked;
  },
  async grade({ output, expectedBehavior }) {
    return offlineGrade(output, expectedBehavior);
  },
};
