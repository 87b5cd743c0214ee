// DATABASE_POOL_SIZE (docs/operations.md): the most connections a process's pool opens; a value
// out of its range stops the process at start with the variable named, as every setting does.
import { afterEach, expect, it } from "vitest";
import { env, provideEnv } from "@/env";
import { closeDb, createDb } from "@/server/db";

afterEach(() => {
  delete process.env.DATABASE_POOL_SIZE;
  provideEnv({});
});

it("opens at most DATABASE_POOL_SIZE connections; the statements past it wait for one", async () => {
  process.env.DATABASE_POOL_SIZE = "2";
  provideEnv({});
  const db = createDb(process.env.DATABASE_URL!);
  const probe = createDb(process.env.DATABASE_URL!, 2);
  try {
    const sleeps = Array.from({ length: 4 }, () => db.pool.query("select pg_sleep(2)"));
    // Connections open at their own pace on a loaded machine: wait for the first two to run.
    const running = async () => {
      const { rows } = await probe.pool.query<{ sleeping: string }>(
        "select count(*) as sleeping from pg_stat_activity where query = 'select pg_sleep(2)' and state = 'active'",
      );
      return Number(rows[0]!.sleeping);
    };
    let sleeping = await running();
    for (let waited = 0; sleeping < 2 && waited < 1_500; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      sleeping = await running();
    }
    expect(sleeping).toBe(2);
    expect(db.pool.waitingCount).toBe(2);
    await Promise.all(sleeps);
  } finally {
    await Promise.all([closeDb(db), closeDb(probe)]);
  }
});

it("refuses a pool size below two or not a number, naming the variable", () => {
  for (const value of ["1", "lots"]) {
    process.env.DATABASE_POOL_SIZE = value;
    provideEnv({});
    expect(() => env()).toThrow(/Invalid configuration: DATABASE_POOL_SIZE/);
  }
});
