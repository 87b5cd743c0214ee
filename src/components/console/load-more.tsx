"use client";

/** The "Load more" button under a list read with useCursorList. */
export function LoadMore({ list }: { list: { hasMore: boolean; isLoadingMore: boolean; loadMore: () => void } }) {
  if (!list.hasMore) return null;
  return (
    <button type="button" className="load-more" onClick={list.loadMore} disabled={list.isLoadingMore}>
      {list.isLoadingMore ? "Loading…" : "Load more"}
    </button>
  );
}
