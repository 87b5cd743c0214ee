import { z } from "zod";
import {
  boundedInt,
  descriptionText,
  ListQuery,
  NameQuery,
  nameText,
  NextCursor,
  plainText,
  Timestamp,
  Uuid,
} from "../common";
import { MAX_SEARCH_QUERY_CHARS, MAX_SEARCH_RESULTS } from "../limits";
import { Source } from "./source";

export const PageIndexEntry = z.object({
  id: Uuid,
  title: z.string(),
  templateKey: z.string(),
  parentPageId: Uuid.nullable(),
  updatedAt: Timestamp,
  hook: z.string(),
  isFolder: z.boolean(),
  path: z.array(z.string()).meta({ description: "Titles from the top level down to and including this page." }),
});
export type PageIndexEntry = z.infer<typeof PageIndexEntry>;

/** PostgreSQL's text-search configurations: stemming and stop words of one language, or none ("simple"). */
export const KNOWLEDGEBASE_LANGUAGES = [
  "simple",
  "arabic",
  "armenian",
  "basque",
  "catalan",
  "danish",
  "dutch",
  "english",
  "finnish",
  "french",
  "german",
  "greek",
  "hindi",
  "hungarian",
  "indonesian",
  "irish",
  "italian",
  "lithuanian",
  "nepali",
  "norwegian",
  "portuguese",
  "romanian",
  "russian",
  "serbian",
  "spanish",
  "swedish",
  "tamil",
  "turkish",
  "yiddish",
] as const;
export type KnowledgebaseLanguage = (typeof KNOWLEDGEBASE_LANGUAGES)[number];
export const KnowledgebaseLanguage = z.enum(KNOWLEDGEBASE_LANGUAGES).meta({
  description:
    'How search reads this knowledgebase\'s text: a language stems words and ignores its stop words ("english": "signing" finds "signed"); "simple" only lowercases, for text in several languages. Default english. Changing it re-indexes pages and documents in place.',
});

export const KnowledgebaseSearchMode = z.enum(["auto", "lexical"]).meta({
  description:
    'Which ranking answers this knowledgebase\'s searches: "auto" (default) fuses the lexical ranking with the organization\'s embedding model when it has one and this knowledgebase is embedded, else lexical; "lexical" never sends the question to an embedding model.',
});
export type KnowledgebaseSearchMode = z.infer<typeof KnowledgebaseSearchMode>;

export const KnowledgebaseRerank = z.boolean().meta({
  description:
    "Whether the organization's chat model (its providers' first, oldest provider first) reorders the best 20 results of each search of this knowledgebase (they keep their ranking's score), in one call of at most 2 s (the server's RERANK_TIMEOUT_MS); on a timeout, an error or an answer that is not a ranking the order stands. No credits of its own: the provider bills the organization. Default false. No effect when searchMode is \"lexical\" or the organization has no chat model; a search of several knowledgebases reranks only when every one has it on.",
});

export const KnowledgebaseSummary = z.object({
  id: Uuid,
  name: z.string(),
  description: z.string(),
  language: KnowledgebaseLanguage,
  searchMode: KnowledgebaseSearchMode,
  rerank: KnowledgebaseRerank,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  counts: z.object({ sources: z.number().int(), pages: z.number().int() }),
});
export type KnowledgebaseSummary = z.infer<typeof KnowledgebaseSummary>;

export const CrawlSummary = z
  .object({
    id: Uuid,
    startUrl: z.string(),
    maxPages: z.number().int(),
    maxDepth: z.number().int(),
    refresh: z.enum(["daily", "weekly"]).nullable(),
    status: z.enum(["running", "done"]),
    pages: z.number().int(),
    startedAt: Timestamp,
    finishedAt: Timestamp.nullable(),
  })
  .meta({ id: "CrawlSummary" });
export type CrawlSummary = z.infer<typeof CrawlSummary>;

export const Knowledgebase = KnowledgebaseSummary.extend({
  sources: z.array(Source),
  crawls: z.array(CrawlSummary).meta({ description: "Newest first; its pages are the sources with its `crawlId`" }),
  pages: z.array(PageIndexEntry),
});
export type Knowledgebase = z.infer<typeof Knowledgebase>;

export const KnowledgebaseIdInput = z.strictObject({ knowledgebaseId: Uuid });

export const ListKnowledgebasesInput = ListQuery.extend({ q: NameQuery });
export const ListKnowledgebasesOutput = z.object({
  knowledgebases: z.array(KnowledgebaseSummary),
  nextCursor: NextCursor,
});

export const CreateKnowledgebaseInput = z.strictObject({
  name: nameText,
  description: descriptionText.optional(),
  language: KnowledgebaseLanguage.optional(),
  searchMode: KnowledgebaseSearchMode.optional(),
  rerank: KnowledgebaseRerank.optional(),
});
export type CreateKnowledgebaseInput = z.infer<typeof CreateKnowledgebaseInput>;
export const CreateKnowledgebaseOutput = z.object({ knowledgebase: KnowledgebaseSummary });

/** The creation's fields, each one optional: what is left out stays as it is. */
export const UpdateKnowledgebaseInput = z.strictObject({
  knowledgebaseId: Uuid,
  ...CreateKnowledgebaseInput.shape,
  name: nameText.optional(),
});
export type UpdateKnowledgebaseInput = z.infer<typeof UpdateKnowledgebaseInput>;

export const SearchKind = z.enum(["pages", "sources"]);
export const SearchInput = z.strictObject({
  knowledgebaseId: Uuid,
  query: plainText(MAX_SEARCH_QUERY_CHARS).trim().min(1),
  kinds: z
    .array(SearchKind)
    .min(1)
    .optional()
    .meta({ description: "Default both. Searching sources costs 1 credit; pages are free." }),
  limit: boundedInt(1, MAX_SEARCH_RESULTS).default(10),
});
export type SearchInput = z.infer<typeof SearchInput>;
export const SearchResult = z.object({
  kind: z.enum(["page", "source"]),
  id: Uuid,
  title: z.string(),
  heading: z.string().meta({
    description:
      'For a document: the headings above the matching passage, joined by " > " ("" when it has none). "" for a page.',
  }),
  snippet: z.string(),
  score: z.number(),
});
export const SearchOutput = z.object({ results: z.array(SearchResult) });
export type SearchOutput = z.infer<typeof SearchOutput>;
