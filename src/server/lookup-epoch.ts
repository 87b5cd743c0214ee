// What a process keeps of an organization between requests, and the organization's lookup epoch
// that says when it is stale (prisma/schema.prisma, LookupEpoch): the counter moves on at the
// commit of any change to what is kept, and a kept value is used only by a request that read the
// same epoch, so no process uses it after that commit.
import type { Db } from "@/server/db";

/** SQL: the organization whose id `organization` gives, its lookup epoch as text (0 before its first change). */
export function lookupEpochSql(organization: string): string {
  return `coalesce((select epoch from lookup_epochs where organization_id = ${organization}), 0)::text`;
}

/**
 * Values kept per database (each test database, each pool is its own), by key, each with the
 * epoch it was read at; at most `limit` per database, past which the oldest kept is dropped.
 */
export class KeptAtEpoch<T> {
  private readonly byDb = new WeakMap<Db, Map<string, { value: T; epoch: string }>>();

  constructor(private readonly limit: number) {}

  /** The value kept under `key` if it was read at `epoch`; nothing without an epoch (the request read none). */
  get(db: Db, key: string, epoch: string | undefined): T | undefined {
    const known = this.byDb.get(db)?.get(key);
    return epoch !== undefined && known?.epoch === epoch ? known.value : undefined;
  }

  /** What is kept under `key` and the epoch it was read at, before any epoch is read to check it against. */
  peek(db: Db, key: string): { value: T; epoch: string } | undefined {
    return this.byDb.get(db)?.get(key);
  }

  /** Forgets what is kept under `key`. */
  drop(db: Db, key: string): void {
    this.byDb.get(db)?.delete(key);
  }

  /** Keeps `value`, read at `epoch`, as the newest under `key`. */
  keep(db: Db, key: string, value: T, epoch: string): T {
    let kept = this.byDb.get(db);
    if (!kept) this.byDb.set(db, (kept = new Map()));
    kept.delete(key);
    if (kept.size >= this.limit) kept.delete(kept.keys().next().value!);
    kept.set(key, { value, epoch });
    return value;
  }
}
