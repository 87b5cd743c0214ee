"use client";
// Said under a name field as it is typed: another agent, flow or app already has this name. The
// API accepts it; the note only warns, so that nobody ends up with two "Support" flows by accident.
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useDeferredValue } from "react";
import { duplicateNameWarning, type ItemRow } from "@/lib/item-state";
import { MAX_NAME_CHARS } from "@/schemas/limits";
import { ONE, useKindProcedures, type Doc, type KindPlural } from "./use-draft-editor";

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
