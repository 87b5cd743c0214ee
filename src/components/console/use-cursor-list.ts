"use client";
import { useQueries, type UseQueryOptions, type UseQueryResult } from "@tanstack/react-query";
import { useState } from "react";

/** A page of one of our cursor-paginated lists: its items under some name, and the next cursor. */
type CursorPage = { nextCursor?: string | null };

/** What a page query's function resolves to (tRPC's `queryOptions` types it). */
type PageOf<Options> = Options extends { queryFn?: infer Fn }
  ? Fn extends (...args: never[]) => infer Result
    ? Awaited<Result>
    : never
  : never;

/** A list loaded page by page (useCursorList). */
export interface CursorList<Item> {
  items: Item[];
  /** The first page is loading: nothing to show yet. */
  isLoading: boolean;
  /** The first page has answered (its items may be none). */
  isLoaded: boolean;
  error: Error | null;
  hasMore: boolean;
  isLoadingMore: boolean;
  loadMore: () => void;
}

/**
 * "Load more" over our cursor pagination: one query per page loaded so far, the items of all
 * of them in order. `pageOptions(cursor)` gives a page's query options (e.g. a tRPC list's
 * `queryOptions({ ...filters, cursor })`); when the first page's query changes (new filters),
 * the list starts over.
 */
export function useCursorList<Options extends { queryKey: readonly unknown[] }, Item>(
  pageOptions: (cursor: string | undefined) => Options,
  itemsOf: (page: PageOf<Options> & CursorPage) => Item[],
): CursorList<Item> {
  type Page = PageOf<Options> & CursorPage;
  const firstKey = JSON.stringify(pageOptions(undefined).queryKey);
  const [loaded, setLoaded] = useState<{ firstKey: string; cursors: string[] }>({ firstKey, cursors: [] });
  const cursors = loaded.firstKey === firstKey ? loaded.cursors : [];
  // The options come from the caller's query factory; useQueries cannot infer the page from them.
  const pages: UseQueryResult<Page>[] = useQueries({
    queries: [undefined, ...cursors].map((cursor) => pageOptions(cursor) as unknown as UseQueryOptions<Page>),
  });
  const last = pages[pages.length - 1];
  const nextCursor = (last?.data as CursorPage | undefined)?.nextCursor ?? undefined;
  return {
    items: pages.flatMap((page) => (page.data ? itemsOf(page.data) : [])),
    isLoading: !!pages[0]?.isLoading,
    isLoaded: !!pages[0]?.data,
    error: pages.find((page) => page.error)?.error ?? null,
    hasMore: !!nextCursor,
    isLoadingMore: pages.length > 1 && !!last?.isLoading,
    loadMore: () => {
      if (nextCursor) setLoaded({ firstKey, cursors: [...cursors, nextCursor] });
    },
  };
}
