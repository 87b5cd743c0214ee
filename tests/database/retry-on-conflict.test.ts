// retryOnConflict, the one place a transaction runs again: two transactions that lock two rows in
// opposite orders deadlock for real; PostgreSQL aborts one (40P01), which runs once more and
// succeeds, so both callers see success and both writes are stored. Other failures are not retried.
import { expect, it } from "vitest";
import { getDb, isRetryableConflict, retryOnConflict } from "@/server/db";

function barrier(parties: number) {
  let arrived = 0;
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return () => {
    if (++arrived === parties) open();
    return opened;
  };
}

it("runs a deadlock's victim once more: both transactions commit", async () => {
  const db = getDb();
  await db.$executeRawUnsafe("create table lock_pair (id int primary key, writes int not null default 0)");
  await db.$executeRawUnsafe("insert into lock_pair (id) values (1), (2)");
  const bothHoldTheirFirstRow = barrier(2);
  const attempts = { first: 0, second: 0 };
  const lockBoth = (name: "first" | "second", order: [number, number]) =>
    retryOnConflict(() =>
      db.$transaction(async (tx) => {
        attempts[name]++;
        await tx.$executeRaw`update lock_pair set writes = writes + 1 where id = ${order[0]}`;
        if (attempts[name] === 1) await bothHoldTheirFirstRow();
        await tx.$executeRaw`update lock_pair set writes = writes + 1 where id = ${order[1]}`;
      }),
    );
  await Promise.all([lockBoth("first", [1, 2]), lockBoth("second", [2, 1])]);
  expect(attempts.first + attempts.second).toBe(3);
  const rows = await db.$queryRaw<{ id: number; writes: number }[]>`select id, writes from lock_pair order by id`;
  expect(rows).toEqual([
    { id: 1, writes: 2 },
    { id: 2, writes: 2 },
  ]);
});

it("does not retry other failures", async () => {
  let attempts = 0;
  const failure = await retryOnConflict(() => {
    attempts++;
    return getDb().$executeRawUnsafe("select * from no_such_table");
  }).catch((error: unknown) => error);
  expect(isRetryableConflict(failure)).toBe(false);
  expect(attempts).toBe(1);
});
