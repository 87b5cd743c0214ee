"use client";
// Search over a knowledgebase's pages and documents with the search endpoint's own rules
// (services/knowledge/search.ts): pages are free, documents cost a credit, so documents are opt-in.
import { useMutation } from "@tanstack/react-query";
import { FileText, Search } from "lucide-react";
import Link from "next/link";
import { useWatch } from "react-hook-form";
import { Button, ErrorAlert, fieldProblem, FormField, Panel, useZodForm } from "@/components/console";
import { withoutHeadingMarks } from "@/lib/passage-text";
import { useTRPC } from "@/lib/trpc";
import { SearchInput } from "@/schemas/knowledge/knowledgebase";
import "./knowledge.css";
import { MAX_SEARCH_QUERY_CHARS } from "@/schemas/limits";

/** A snippet with its matches marked `**like this**`, as <mark>s. */
function Snippet({ text }: { text: string }) {
  return (
    <p className="snippet">
      {withoutHeadingMarks(text)
        .split("**")
        .map((part, index) => (index % 2 === 1 ? <mark key={index}>{part}</mark> : part))}
    </p>
  );
}

export function KnowledgeSearch({ knowledgebaseId }: { knowledgebaseId: string }) {
  const trpc = useTRPC();
  const form = useZodForm(SearchInput, {
    defaultValues: { query: "", documents: false },
    asInput: ({ query, documents }: { query: string; documents: boolean }) => ({
      knowledgebaseId,
      query,
      kinds: (documents ? ["pages", "sources"] : ["pages"]) satisfies SearchInput["kinds"],
      limit: 20,
    }),
    fieldOf: (path: readonly PropertyKey[]) => (path[0] === "query" ? ("query" as const) : null),
  });
  const query = useWatch({ control: form.control, name: "query" });
  const search = useMutation(trpc.knowledge.search.mutationOptions());
  const submit = form.handleSubmit((input) => search.mutate(input));
  // What the shown results were searched in.
  const documents = search.variables?.kinds?.includes("sources") ?? false;

  const results = search.data?.results;
  return (
    <Panel title="Search" headingId="knowledge-search-title">
      <form className="row grow-first" role="search" onSubmit={(event) => void submit(event)}>
        <FormField label="Words to find" error={fieldProblem(form, "query")}>
          <input
            type="search"
            maxLength={MAX_SEARCH_QUERY_CHARS}
            placeholder='e.g. refund OR "money back"'
            style={{ width: "100%" }}
            {...form.register("query")}
          />
        </FormField>
        <label className="inline">
          <input type="checkbox" {...form.register("documents")} />
          Documents too (1 credit)
        </label>
        <Button type="submit" variant="primary" disabled={query.trim() === "" || search.isPending}>
          <Search size={16} aria-hidden className="icon" />
          Search
        </Button>
      </form>
      <ErrorAlert error={fieldProblem(form, "root") ?? search.error} />
      {results && results.length === 0 && (
        <p className="muted">Nothing matches{documents ? "" : " in the pages; try documents too"}.</p>
      )}
      {results && results.length > 0 && (
        <ol className="search-results" data-testid="search-results" aria-label="Search results">
          {results.map((result) => (
            <li key={`${result.kind}-${result.id}`}>
              <FileText size={16} aria-hidden className="icon" />{" "}
              <Link
                href={
                  result.kind === "page"
                    ? `/knowledge/${knowledgebaseId}?page=${result.id}`
                    : `/knowledge/${knowledgebaseId}/sources/${result.id}`
                }
              >
                {result.title}
              </Link>{" "}
              <span className="badge">{result.kind === "page" ? "page" : "document"}</span>
              {result.heading && <span className="muted"> · {result.heading}</span>}
              <Snippet text={result.snippet} />
            </li>
          ))}
        </ol>
      )}
    </Panel>
  );
}
