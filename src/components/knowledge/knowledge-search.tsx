"use client";
// Search over a knowledgebase's pages and documents with the search endpoint's own rules
// (services/knowledge/search.ts): pages are free, documents cost a credit, so documents are opt-in.
import { useMutation } from "@tanstack/react-query";
import { FileText, Search } from "lucide-react";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { Button, ErrorAlert, FormField, Panel } from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import "./knowledge.css";
import { MAX_SEARCH_QUERY_CHARS } from "@/schemas/limits";

/** A snippet with its matches marked `**like this**`, as <mark>s. */
function Snippet({ text }: { text: string }) {
  return (
    <p className="snippet">
      {text.split("**").map((part, index) => (index % 2 === 1 ? <mark key={index}>{part}</mark> : part))}
    </p>
  );
}

export function KnowledgeSearch({ knowledgebaseId }: { knowledgebaseId: string }) {
  const trpc = useTRPC();
  const [query, setQuery] = useState("");
  const [documents, setDocuments] = useState(false);
  const search = useMutation(trpc.knowledge.search.mutationOptions());

  function submit(event: FormEvent) {
    event.preventDefault();
    search.mutate({
      knowledgebaseId,
      query: query.trim(),
      kinds: documents ? ["pages", "sources"] : ["pages"],
      limit: 20,
    });
  }

  const results = search.data?.results;
  return (
    <Panel title="Search" headingId="knowledge-search-title">
      <form className="row grow-first" role="search" onSubmit={submit}>
        <FormField label="Words to find">
          <input
            type="search"
            maxLength={MAX_SEARCH_QUERY_CHARS}
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            placeholder='e.g. refund OR "money back"'
            style={{ width: "100%" }}
          />
        </FormField>
        <label className="inline">
          <input type="checkbox" checked={documents} onChange={(e) => setDocuments(e.target.checked)} />
          Documents too (1 credit)
        </label>
        <Button type="submit" variant="primary" disabled={query.trim() === "" || search.isPending}>
          <Search size={16} aria-hidden className="icon" />
          Search
        </Button>
      </form>
      <ErrorAlert error={search.error} />
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
