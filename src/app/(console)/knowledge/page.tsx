"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { errorMessage, useTRPC } from "@/lib/trpc";
import { PageHeader } from "@/components/console";

export default function KnowledgePage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(trpc.knowledge.list.queryOptions({ limit: 200 }));
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
      <PageHeader title="Knowledge" />
      <form className="panel form" onSubmit={submit} aria-label="Create a knowledgebase">
        <h2 style={{ marginTop: 0 }}>New knowledgebase</h2>
        <label>
          Name
          <input required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label>
          Description
          <input maxLength={5000} value={description} onChange={(e) => setDescription(e.target.value)} />
        </label>
        {create.error && (
          <p role="alert" className="error">
            {errorMessage(create.error)}
          </p>
        )}
        <div>
          <button className="primary" type="submit" disabled={create.isPending}>
            Create knowledgebase
          </button>
        </div>
      </form>
      <div className="panel">
        {list.isLoading && <p className="muted">Loading…</p>}
        {list.error && (
          <p role="alert" className="error">
            {errorMessage(list.error)}
          </p>
        )}
        {list.data?.knowledgebases.length === 0 && <p className="muted">No knowledgebases yet.</p>}
        {list.data && list.data.knowledgebases.length > 0 && (
          <table>
            <thead>
              <tr>
                <th>Name</th>
                <th>Sources</th>
                <th>Pages</th>
                <th>Updated</th>
              </tr>
            </thead>
            <tbody>
              {list.data.knowledgebases.map((kb) => (
                <tr key={kb.id}>
                  <td>
                    <Link href={`/knowledge/${kb.id}`}>{kb.name}</Link>
                    {kb.description && <div className="muted">{kb.description}</div>}
                  </td>
                  <td>{kb.counts.sources}</td>
                  <td>{kb.counts.pages}</td>
                  <td className="muted">{new Date(kb.updatedAt).toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </>
  );
}
