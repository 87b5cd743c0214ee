"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useDeferredValue, useState, type FormEvent } from "react";
import {
  Button,
  DataTable,
  ErrorAlert,
  FormField,
  LoadMore,
  PageHeader,
  Panel,
  useCursorList,
} from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { MAX_DESCRIPTION_CHARS, MAX_NAME_CHARS } from "@/schemas/limits";

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
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const create = useMutation(
    trpc.knowledge.create.mutationOptions({
      onSuccess: () => {
        setName("");
        setDescription("");
        void queryClient.invalidateQueries({ queryKey: trpc.knowledge.list.queryKey() });
      },
    }),
  );
  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate({ name, description });
  }
  return (
    <>
      <PageHeader
        title="Knowledge"
        description="Knowledgebases: pages you write and documents you add, which agents search when they answer."
      />
      <Panel title="New knowledgebase" label="Create a knowledgebase" onSubmit={submit}>
        <FormField label="Name">
          <input required maxLength={MAX_NAME_CHARS} value={name} onChange={(e) => setName(e.target.value)} />
        </FormField>
        <FormField label="Description">
          <input
            maxLength={MAX_DESCRIPTION_CHARS}
            value={description}
            onChange={(e) => setDescription(e.target.value)}
          />
        </FormField>
        <ErrorAlert error={create.error} />
        <div>
          <Button variant="primary" type="submit" disabled={create.isPending}>
            Create knowledgebase
          </Button>
        </div>
      </Panel>
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
        {list.isLoading && <p className="muted">Loading…</p>}
        <ErrorAlert error={list.error} />
        <DataTable
          label="Knowledgebases"
          rows={list.isLoaded ? list.items : undefined}
          rowKey={(kb) => kb.id}
          empty={q ? `No knowledgebase's name contains “${q}”.` : "No knowledgebases yet: create the first one above."}
          columns={[
            {
              key: "name",
              header: "Name",
              sortValue: (kb) => kb.name,
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
              cell: (kb) => <span className="muted">{new Date(kb.updatedAt).toLocaleString()}</span>,
            },
          ]}
        />
        <LoadMore list={list} />
      </Panel>
    </>
  );
}
