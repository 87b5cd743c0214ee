// A write that lands while a page's first read of a list is still in flight: the list must end
// showing the write (src/lib/query-client.ts), as it does when the read had already answered.
import { QueryClient, QueryObserver } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { FreshQueryClient } from "@/lib/query-client";

/** A server whose list answers after `delayMs`, with what it held when the read arrived. */
function slowServer(delayMs: number) {
  const rows = ["first"];
  return {
    write: (row: string) => rows.push(row),
    read: () => {
      const seen = [...rows];
      return new Promise<string[]>((resolve) => setTimeout(() => resolve(seen), delayMs));
    },
  };
}

async function listAfterWriteDuringFirstRead(client: QueryClient): Promise<string[] | undefined> {
  const server = slowServer(50);
  const observer = new QueryObserver(client, { queryKey: ["list"], queryFn: server.read });
  const unsubscribe = observer.subscribe(() => {});
  try {
    // The page's first read is on its way; the write lands and the page invalidates the list.
    server.write("second");
    await client.invalidateQueries({ queryKey: ["list"] });
    await new Promise((resolve) => setTimeout(resolve, 200));
    return client.getQueryData<string[]>(["list"]);
  } finally {
    unsubscribe();
    client.clear();
  }
}

describe("invalidating a list whose first read is in flight", () => {
  it("ends with a read made after the write", async () => {
    expect(await listAfterWriteDuringFirstRead(new FreshQueryClient())).toEqual(["first", "second"]);
  });

  it("would keep the earlier read with TanStack Query's own client (why the console uses its own)", async () => {
    expect(await listAfterWriteDuringFirstRead(new QueryClient())).toEqual(["first"]);
  });
});
