// Prototype of a document-level score (issue 34, scope 2), measured with `npm run eval:retrieval --
// --docscore "<variant>;<variant>"` and not part of the ranking (BENCHMARKS.md, 2026-11-27 before
// midnight): the best `depth` passages whatever their document, each document scored by the sum
// of its best `passages` passage scores, fused with the search API's ranking (one passage per
// document) by reciprocal rank (k = 60), the document ranking weighing `weight`.
// A variant is "depth,passages,weight".
import type { Db } from "@/server/db";
import { retrieve } from "@/server/runtime/retrieval/retrieve";
import type { Ranker } from "./sets";

export interface DocumentScoreVariant {
  label: string;
  depth: number;
  passages: number;
  weight: number;
}

export function parseDocumentScoreVariants(spec: string | undefined): DocumentScoreVariant[] {
  if (!spec) return [];
  return spec.split(";").map((label) => {
    const [depth, passages, weight] = label.split(",").map(Number);
    return { label, depth: depth!, passages: passages!, weight: weight! };
  });
}

export function documentScoreRanker(
  db: Db,
  organizationId: string,
  knowledgebaseId: string,
  first: Ranker,
  variant: DocumentScoreVariant,
): Ranker {
  return async (question) => {
    const hits = await retrieve(db, organizationId, {
      knowledgebaseIds: [knowledgebaseId],
      query: question,
      limit: variant.depth,
      kinds: { pages: false, sources: true },
    });
    const perDocument = new Map<string, number[]>();
    for (const hit of hits) perDocument.set(hit.title, [...(perDocument.get(hit.title) ?? []), hit.score]);
    const documents = [...perDocument.entries()]
      .map(([title, scores]) => ({ title, score: scores.slice(0, variant.passages).reduce((a, b) => a + b, 0) }))
      .sort((a, b) => b.score - a.score)
      .map((document) => document.title);
    const fused = new Map<string, number>();
    const add = (titles: string[], weight: number) =>
      [...new Set(titles)].forEach((title, index) => fused.set(title, (fused.get(title) ?? 0) + weight / (60 + index + 1)));
    add((await first(question)).titles, 1);
    add(documents, variant.weight);
    const titles = [...fused.entries()].sort((a, b) => b[1] - a[1]).map(([title]) => title);
    return { titles, headings: titles.map(() => "") };
  };
}
