"use client";
// Said under a name field as it is typed: another agent, flow or app already has this name. The
// API accepts it; the note only warns, so that nobody ends up with two "Support" flows by accident.
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useDeferredValue } from "react";
import { duplicateNameWarning, type ItemRow } from "@/lib/item-state";
import { MAX_NAME_CHARS } from "@/schemas/limits";
import { TextArea, TextField } from "./fields";
import { ONE, useKindProcedures, type Doc, type KindPlural } from "./use-draft-editor";

/** The name (with the note below), slug and description an agent's and a flow's editors open with. */
export function NameSlugDescription({
  kind,
  doc,
  update,
}: {
  kind: KindPlural;
  doc: Doc;
  update: (changes: Doc) => void;
}) {
  return (
    <>
      <TextField label="Name" value={doc.name} onChange={(name) => update({ name })} testId="field-name" />
      <DuplicateNameNote kind={kind} name={doc.name} self={doc.id as string} />
      <TextField label="Slug" value={doc.slug} onChange={(slug) => update({ slug })} />
      <TextArea
        label="Description"
        value={doc.description}
        onChange={(description) => update({ description })}
        rows={2}
      />
    </>
  );
}

export function DuplicateNameNote({ kind, name, self }: { kind: KindPlural; name: string; self?: string }) {
  const procs = useKindProcedures(kind);
  const typed = useDeferredValue(name.trim()).slice(0, MAX_NAME_CHARS);
  // The server searches names (case-insensitive, part of a name); the exact match is decided here.
  const same = useQuery({
    ...(procs.list.queryOptions({ include: "drafts", q: typed, limit: 20 }) as {
      queryKey: readonly unknown[];
      queryFn?: () => Promise<Doc>;
    }),
    enabled: typed.length > 0,
    placeholderData: keepPreviousData,
  });
  const rows = (same.data?.[kind] ?? []) as ItemRow[];
  const warning = typed ? duplicateNameWarning(ONE[kind], name, rows, self) : null;
  if (!warning) return null;
  return (
    <p className="hint" role="status" data-testid="duplicate-name">
      {warning}
    </p>
  );
}
