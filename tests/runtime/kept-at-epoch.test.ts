// What a process keeps between requests (src/server/lookup-epoch.ts): a value serves only a
// request that read the epoch it was read at, each database keeps its own, and the oldest kept
// goes past the bound.
import { describe, expect, it } from "vitest";
import type { Db } from "@/server/db";
import { KeptAtEpoch } from "@/server/lookup-epoch";

// Two pools stand for two databases: only their identity is used.
const one = {} as Db;
const other = {} as Db;

describe("KeptAtEpoch", () => {
  it("serves a value only at the epoch it was read at, and never to a request that read none", () => {
    const kept = new KeptAtEpoch<string>(10);
    kept.keep(one, "org-a", "providers at 3", "3");
    expect(kept.get(one, "org-a", "3")).toBe("providers at 3");
    expect(kept.get(one, "org-a", "4")).toBeUndefined();
    expect(kept.get(one, "org-a", undefined)).toBeUndefined();
    expect(kept.get(other, "org-a", "3")).toBeUndefined();
    kept.keep(one, "org-a", "providers at 4", "4");
    expect(kept.get(one, "org-a", "3")).toBeUndefined();
    expect(kept.get(one, "org-a", "4")).toBe("providers at 4");
  });

  it("drops the oldest kept past its bound; keeping one again makes it the newest", () => {
    const kept = new KeptAtEpoch<number>(2);
    kept.keep(one, "a", 1, "0");
    kept.keep(one, "b", 2, "0");
    kept.keep(one, "a", 1, "0");
    kept.keep(one, "c", 3, "0");
    expect(kept.get(one, "b", "0")).toBeUndefined();
    expect(kept.get(one, "a", "0")).toBe(1);
    expect(kept.get(one, "c", "0")).toBe(3);
    kept.keep(other, "d", 4, "0");
    expect(kept.get(one, "a", "0")).toBe(1);
  });
});
