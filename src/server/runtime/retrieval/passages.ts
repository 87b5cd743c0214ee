// What an agent or a knowledge_search node knows for a message: the best passages of its
// knowledgebases by the shared retrieval function (retrieve.ts), which keeps to the
// run's organization and never reads an end user's private notebook. Each passage is titled
// with its document and the headings above it, for citations.
import type { Db } from "@/server/db";
import { AGENT_PASSAGES, passageTitle, type RetrievalPath } from "./hits";
import { retrieveCharging } from "./retrieve";
import { RUN_LIMITS } from "../limits";
import type { TracePassage } from "@/schemas/runs/runtime";
import type { Passage, ProviderRow } from "../models";

export interface Retrieved {
  passages: Passage[];
  /** Which ranking answered, and why. */
  path: RetrievalPath;
  /** Knowledgebase ids asked for that are not the organization's (deleted, moved, or never its own). */
  missing: string[];
}

/** `providers`: the organization's model providers, when the run read them with its app. */
export async function retrievePassages(
  db: Db,
  organizationId: string,
  knowledgebaseIds: string[],
  query: string,
  providers?: ProviderRow[],
): Promise<Retrieved> {
  if (knowledgebaseIds.length === 0)
    return { passages: [], missing: [], path: { method: "lexical", reason: "nothing_to_search" } };
  const request = {
    knowledgebaseIds,
    query,
    limit: AGENT_PASSAGES,
    textChars: RUN_LIMITS.passageChars,
    snippets: false,
  };
  const { hits, found, path } = await retrieveCharging(db, organizationId, request, 0, { providers });
  return {
    passages: hits.map((hit) => ({
      title: passageTitle(hit),
      text: hit.text,
      from: {
        kind: hit.kind,
        id: hit.id,
        knowledgebaseId: hit.knowledgebaseId,
        title: hit.title,
        heading: hit.heading,
      },
    })),
    missing: knowledgebaseIds.filter((id) => !found.has(id)),
    path,
  };
}

/** How much of a retrieved passage's text a trace keeps. */
const TRACE_SNIPPET_CHARS = 300;

/** What a trace keeps of the passages a step retrieved: where each was found and how it starts. */
export function tracePassages(passages: Passage[]): TracePassage[] {
  return passages.flatMap((passage) => {
    const from = passage.from;
    // A turn's attachments are the caller's, not the organization's knowledge: not in the trace.
    if (!from || from.kind === "attachment") return [];
    const text = passage.text.replace(/\s+/g, " ").trim();
    const snippet = text.length > TRACE_SNIPPET_CHARS ? `${text.slice(0, TRACE_SNIPPET_CHARS - 1)}…` : text;
    return [{ ...from, kind: from.kind, knowledgebaseId: from.knowledgebaseId ?? "", snippet }];
  });
}

/** The trace's note for references that found nothing. */
export function missingNote(missing: string[]): string | undefined {
  return missing.length
    ? `knowledgebase ${missing.join(", ")} not found in this organization; nothing was searched there`
    : undefined;
}
