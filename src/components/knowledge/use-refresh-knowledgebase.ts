"use client";
import { useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/lib/trpc";

/** Refetches everything the knowledgebase page shows after a write (pages, sources, counts, settings, recent activity). */
export function useRefreshKnowledgebase() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.knowledge.pathKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.audit.list.pathKey() }),
    ]);
}
