// The built-in model: extractive and honest. It answers with the sentences under the heading of the
// agent's retrieved knowledge that best matches the message (each cited by its passage's number), routes by
// matching the message against each member's description, and grades by checking that the
// output covers the expected behaviour's key terms. No network, no randomness.
import type { AnswerInput, ChatModel, Grade, Passage, RouteCandidate } from "./model-types";
import { BUILTIN_MODEL_ID } from "./model-types";
import { withMarker } from "./citations";
import { estimateTokens } from "./metering";
import { overlap, sections, terms, type AnswerUnit } from "./text";

/** An answer quotes at most this many prose sentences… */
const MAX_SENTENCES = 3;
/** …and this many units in all (a section's list items and table rows are short). */
const MAX_UNITS = 8;
/** What a word of the question found only in a section's outer headings counts for. */
const PARENT_HEADING_WEIGHT = 0.25;
/** What an end user reads when there is nothing to answer from: plain words, no internals. */
export const NO_KNOWLEDGE = "I can only answer from this assistant's knowledge, and it doesn't have any yet.";
export const NOTHING_FOUND = "I couldn't find anything about that in what I know. Try asking in other words.";
/** Share of the expected behaviour's key terms the output must contain to pass. */
const PASS_SHARE = 0.5;

/** Lower-cased words only, to tell whether a sentence repeats the question. */
function plain(text: string): string {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).join(" ");
}

interface Quoted {
  unit: AnswerUnit;
  passage: Passage;
}

/** Units in their order, while the budget lasts. */
function withinBudget(units: Quoted[]): Quoted[] {
  const taken: Quoted[] = [];
  let prose = 0;
  for (const entry of units) {
    if (taken.length >= MAX_UNITS) break;
    if (entry.unit.kind === "sentence") {
      if (prose >= MAX_SENTENCES) continue;
      prose++;
    }
    taken.push(entry);
  }
  return taken;
}

function count(wanted: Set<string>, text: string): number {
  let hits = 0;
  for (const term of new Set(terms(text))) if (wanted.has(term)) hits++;
  return hits;
}

/**
 * What to answer with, from the section that matches the message best: its heading's words
 * count (an outer heading's a quarter), and the words its own heading does not hold are looked
 * for in what stands under it. When
 * the heading holds the question, the section is the answer, in order; otherwise the units that
 * hold most of the rest. Never a heading, a question, or a unit the message already holds (an
 * answer does not echo its question). With `lead`, when nothing matches, the knowledge's first units.
 */
function bestUnits(message: string, knowledge: Passage[], lead = false): Quoted[] {
  const asked = ` ${plain(message)} `;
  const wanted = new Set(terms(message));
  const answerable = (unit: AnswerUnit) =>
    plain(unit.text) !== "" && !unit.text.endsWith("?") && !asked.includes(` ${plain(unit.text)} `);
  let best: { score: number; units: Quoted[]; rest: Set<string> } | null = null;
  const opening: Quoted[] = [];
  for (const passage of knowledge)
    for (const section of sections(passage.text, passage.from?.heading)) {
      const units = section.units.filter(answerable).map((unit) => ({ unit, passage }));
      opening.push(...units);
      if (units.length === 0 || wanted.size === 0) continue;
      const own = new Set(terms(section.heading));
      const above = new Set(terms(section.parents));
      const rest = new Set([...wanted].filter((term) => !own.has(term)));
      const headed = [...wanted].filter((term) => own.has(term)).length;
      const outer = [...wanted].filter((term) => !own.has(term) && above.has(term)).length;
      const score =
        headed + PARENT_HEADING_WEIGHT * outer + Math.max(...units.map((entry) => count(rest, entry.unit.text)));
      if (score > 0 && (!best || score > best.score)) best = { score, units, rest };
    }
  if (!best) return lead ? withinBudget(opening) : [];
  const { units, rest } = best;
  const most = Math.max(...units.map((entry) => count(rest, entry.unit.text)));
  return withinBudget(most === 0 ? units : units.filter((entry) => count(rest, entry.unit.text) === most));
}

/** Prose runs on; a list item or a table row stands on its own line. */
function joined(parts: { kind: AnswerUnit["kind"]; text: string }[]): string {
  return parts
    .map((part, i) => {
      const text = part.kind === "item" ? `- ${part.text}` : part.text;
      if (i === 0) return text;
      return part.kind === "sentence" && parts[i - 1]!.kind === "sentence" ? ` ${text}` : `\n${text}`;
    })
    .join("");
}

/** The knowledge's best-matching units (bestUnits), each cited `[n]` when `cite` numbers its passage. */
export function offlineAnswer({
  message,
  knowledge,
  hasKnowledge,
  cite,
  leadWhenUnmatched,
}: Pick<AnswerInput, "message" | "knowledge" | "hasKnowledge" | "cite" | "leadWhenUnmatched">): string {
  const found = bestUnits(message, knowledge, leadWhenUnmatched);
  if (found.length === 0) return knowledge.length === 0 && !hasKnowledge ? NO_KNOWLEDGE : NOTHING_FOUND;
  return joined(
    found.map(({ unit, passage }) => ({ kind: unit.kind, text: withMarker(unit.text, cite?.(passage) ?? null) })),
  );
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
  async answer(input, onText) {
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
        onText(piece);
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
