"use client";
// The list page of a kind: every item with its draft name and state, and a form to create one.
import { ErrorAlert, PageHeader } from "@/components/console";
import { useMutation, useQueries } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { ONE, useKindProcedures, type Doc, type KindPlural } from "./use-draft-editor";
import { MAX_NAME_CHARS } from "@/schemas/limits";

const TITLES = { agents: "Agents", flows: "Flows", apps: "Apps" } as const;
const BLURB = {
  agents: "Agents answer end users with their instructions, model and knowledge.",
  flows: "Flows run a fixed graph of steps (model calls, knowledge searches, templates) over their inputs.",
  apps: "Apps put an adviser and member agents and flows together behind one conversation or transaction API.",
} as const;

export function BuilderList({ kind }: { kind: KindPlural }) {
  const procs = useKindProcedures(kind);
  const router = useRouter();
  // Pages already asked for, by cursor (undefined: the first); "Load more" adds the next one.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const pages = useQueries({
    queries: cursors.map((cursor) =>
      procs.list.queryOptions({ include: "drafts", limit: 100, ...(cursor ? { cursor } : {}) }),
    ),
  }) as {
    data?: Doc;
    error: unknown;
    isLoading: boolean;
  }[];
  const list = { isLoading: pages.some((page) => page.isLoading), error: pages.find((page) => page.error)?.error };
  const nextCursor = pages[pages.length - 1]?.data?.nextCursor as string | null | undefined;
  const [name, setName] = useState("");
  const create = useMutation(
    procs.create.mutationOptions({ onSuccess: (data: Doc) => router.push(`/${kind}/${data[ONE[kind]].id}`) }),
  ) as {
    mutate: (input: Doc) => void;
    isPending: boolean;
    error: unknown;
  };
  const items = pages.flatMap((page) => (page.data?.[kind] ?? []) as Doc[]);

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate({ name });
  }

  return (
    <>
      <PageHeader title={TITLES[kind]} />
      <p className="muted">{BLURB[kind]} Edits change the draft; nothing reaches end users until it is published.</p>
      <form className="panel form" onSubmit={submit} aria-label={`Create ${ONE[kind]}`}>
        <label>
          Name
          <input
            required
            maxLength={MAX_NAME_CHARS}
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder={`New ${ONE[kind]} name`}
          />
        </label>
        <ErrorAlert error={create.error} />
        <div>
          <button className="primary" type="submit" disabled={create.isPending}>
            Create {ONE[kind]}
          </button>
        </div>
      </form>
      <div className="panel">
        {list.isLoading && <p className="muted">Loading…</p>}
        <ErrorAlert error={list.error} />
        {!list.isLoading && items.length === 0 && (
          <p className="muted">No {kind} yet: name the first one above and create it.</p>
        )}
        {items.length > 0 && (
          // On a phone each item is a card of labelled cells, rather than columns squeezed letter by letter.
          <div className="table-scroll table-cards" role="region" aria-label={TITLES[kind]} tabIndex={0}>
            <table>
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Description</th>
                  <th>State</th>
                  <th>Updated</th>
                </tr>
              </thead>
              <tbody>
                {items.map((item) => (
                  <tr key={item.id}>
                    <td data-label="Name">
                      <Link href={`/${kind}/${item.id}`}>{item.name}</Link>
                    </td>
                    <td className="muted" data-label={item.description ? "Description" : undefined}>
                      {item.description}
                    </td>
                    <td className="nowrap" data-label="State">
                      {item.published ? (
                        <span className="badge">Published</span>
                      ) : (
                        <span className="badge revoked">Draft</span>
                      )}
                    </td>
                    <td className="muted" data-label="Updated">
                      {new Date(item.updatedAt).toLocaleString()}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {nextCursor && (
          <button type="button" onClick={() => setCursors([...cursors, nextCursor])}>
            Load more
          </button>
        )}
      </div>
    </>
  );
}
