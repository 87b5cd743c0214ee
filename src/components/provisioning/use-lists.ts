"use client";
// Lists the console's selects offer (plans, portals), a page at a time: `items`, and
// `<LoadMore list={…} />` beside the select for the rest, so nothing stops silently at one page.
import { useCursorList } from "@/components/console";
import { useTRPC } from "@/lib/trpc";

const PAGE = 50;

/** The organization's tier plans. */
export function useTierPlans() {
  const trpc = useTRPC();
  return useCursorList(
    (cursor) => trpc.tierPlans.list.queryOptions({ limit: PAGE, ...(cursor ? { cursor } : {}) }),
    (page) => page.tierPlans,
  );
}

/** The organization's portals. */
export function usePortalList() {
  const trpc = useTRPC();
  return useCursorList(
    (cursor) => trpc.portals.list.queryOptions({ limit: PAGE, ...(cursor ? { cursor } : {}) }),
    (page) => page.portals,
  );
}
