"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useDeferredValue, useState } from "react";
import {
  CreateNamedItemPanel,
  FormField,
  ListTable,
  NAME_COLUMN,
  PageHeader,
  Panel,
  useCursorList,
  When,
} from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { CreateKnowledgebaseInput } from "@/schemas/knowledge/knowledgebase";
import { MAX_NAME_CHARS } from "@/schemas/limits";

const PAGE = 50;

export default function KnowledgePage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [search, setSearch] = useState("");
  const q = useDeferredValue(search.trim());
  // Searched by name on the server, a page at a time: an organization with thousands finds one.
  const list = useCursorList(
    (cursor) => trpc.knowledge.list.queryOptions({ limit: PAGE, ...(q ? { q } : {}), ...(cursor ? { cursor } : {}) }),
    (page) => page.knowledgebases,
  );
  const create = useMutation(
    trpc.knowledge.create.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.knowledge.list.queryKey() }),
    }),
  );
  return (
    <>
      <PageHeader
        title="Knowledge"
        description="Knowledgebases: pages you write and documents you add, which agents search when they answer."
      />
      <CreateNamedItemPanel
        schema={CreateKnowledgebaseInput}
        create={create}
        title="New knowledgebase"
        label="Create a knowledgebase"
        submitLabel="Create knowledgebase"
        describe
      />
      <Panel>
        <div role="search" aria-label="Find knowledgebases" style={{ marginBottom: "0.75rem" }}>
          <FormField label="Find by name">
            <input
              type="search"
              maxLength={MAX_NAME_CHARS}
              value={search}
              onChange={(e) => setSearch(e.target.value)}
              placeholder="Type part of a name…"
            />
          </FormField>
        </div>
        <ListTable
          list={list}
          label="Knowledgebases"
          empty={q ? `No knowledgebase's name contains “${q}”.` : "No knowledgebases yet: create the first one above."}
          columns={[
            {
              ...NAME_COLUMN,
              cell: (kb) => (
                <>
                  <Link href={`/knowledge/${kb.id}`}>{kb.name}</Link>
                  {kb.description && <div className="muted">{kb.description}</div>}
                </>
              ),
            },
            {
              key: "sources",
              header: "Sources",
              nowrap: true,
              sortValue: (kb) => kb.counts.sources,
              cell: (kb) => kb.counts.sources,
            },
            {
              key: "pages",
              header: "Pages",
              nowrap: true,
              sortValue: (kb) => kb.counts.pages,
              cell: (kb) => kb.counts.pages,
            },
            {
              key: "updated",
              header: "Updated",
              nowrap: true,
              sortValue: (kb) => kb.updatedAt,
              cell: (kb) => (
                <span className="muted">
                  <When at={kb.updatedAt} />
                </span>
              ),
            },
          ]}
        />
      </Panel>
    </>
  );
}
