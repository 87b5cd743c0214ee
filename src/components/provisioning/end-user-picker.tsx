"use client";
// An end user chosen by typing part of their email: the server searches every end user of the
// organization, and offers the first few matches with their names.
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useDeferredValue, useState } from "react";
import { SearchPicker } from "@/components/console";
import { useTRPC } from "@/lib/trpc";

export function EndUserPicker({
  label,
  onPick,
}: {
  label: string;
  onPick: (endUser: { id: string; email: string }) => void;
}) {
  const trpc = useTRPC();
  const [query, setQuery] = useState("");
  const q = useDeferredValue(query.trim());
  const matches = useQuery({
    ...trpc.endUsers.list.queryOptions({ limit: 8, ...(q ? { query: q } : {}) }),
    placeholderData: keepPreviousData,
  });
  return (
    <SearchPicker
      label={label}
      placeholder="Type part of an email…"
      emptyText={matches.isLoading ? "Searching…" : q ? "No end user matches." : "No end users yet."}
      options={(matches.data?.endUsers ?? [])
        // An earlier search's matches stay shown while the server answers: only those that match what is typed now.
        .filter((user) => user.email.toLowerCase().includes(query.trim().toLowerCase()))
        .map((user) => ({ id: user.id, label: user.email, hint: user.fullName || undefined }))}
      onQueryChange={setQuery}
      searching={matches.isLoading || matches.isPlaceholderData || q !== query.trim()}
      onPick={(option) => onPick({ id: option.id, email: option.label })}
    />
  );
}
