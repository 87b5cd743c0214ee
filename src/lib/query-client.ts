// The query client of the console and the portal. TanStack Query's invalidateQueries cancels a
// refetch in flight and starts a fresh one, but leaves a query's first fetch running: when a write
// lands while a page's first read is still on its way (a quick click on a slow network), that read
// predates the write and would then stay on screen as if current. Cancelling those first fetches
// before invalidating makes every invalidation end with an answer read after the write.
import { QueryClient, type InvalidateOptions, type InvalidateQueryFilters, type QueryKey } from "@tanstack/react-query";

export class FreshQueryClient extends QueryClient {
  override async invalidateQueries<TTaggedQueryKey extends QueryKey = QueryKey>(
    filters?: InvalidateQueryFilters<TTaggedQueryKey>,
    options?: InvalidateOptions,
  ): Promise<void> {
    await this.cancelQueries({
      ...filters,
      predicate: (query) =>
        query.state.data === undefined &&
        query.state.fetchStatus === "fetching" &&
        (filters?.predicate?.(query) ?? true),
    } as InvalidateQueryFilters<TTaggedQueryKey>);
    return super.invalidateQueries(filters, options);
  }
}
