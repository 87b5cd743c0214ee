"use client";
// Knowledgebases chosen by name (agents' knowledge, flows' knowledge_search nodes): the name
// links to the knowledgebase and the id is there to copy, never to type.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { CopyButton, SearchPicker } from "@/components/console";
import { useTRPC } from "@/lib/trpc";

function useKnowledgebases() {
  const trpc = useTRPC();
  return useQuery(trpc.knowledge.list.queryOptions({ limit: 200 }));
}

/** A chosen knowledgebase: its name (linked) and its id to copy; an id of none of ours says so. */
export function KnowledgebaseName({ id, fallback }: { id: string; fallback?: string }) {
  const knowledgebases = useKnowledgebases();
  const name = knowledgebases.data?.knowledgebases.find((kb) => kb.id === id)?.name ?? fallback;
  return (
    <span className="row" style={{ gap: "0.5rem" }}>
      {name ? <Link href={`/knowledge/${id}`}>{name}</Link> : <span className="error">No knowledgebase of this organization has this id</span>}
      <CopyButton text={id} label="Copy id" />
    </span>
  );
}

/** Search knowledgebases by name and pick one; those in `exclude` are not offered. */
export function KnowledgebasePicker({ label, exclude = [], onPick }: { label: string; exclude?: string[]; onPick: (id: string) => void }) {
  const knowledgebases = useKnowledgebases();
  return (
    <SearchPicker
      label={label}
      placeholder="Type part of a knowledgebase name…"
      emptyText={knowledgebases.data?.knowledgebases.length === 0 ? "No knowledgebases yet: create one under Knowledge." : "No knowledgebase matches."}
      options={(knowledgebases.data?.knowledgebases ?? [])
        .filter((kb) => !exclude.includes(kb.id))
        .map((kb) => ({ id: kb.id, label: kb.name, hint: `${kb.counts.pages} pages · ${kb.counts.sources} sources` }))}
      onPick={(option) => onPick(option.id)}
    />
  );
}
