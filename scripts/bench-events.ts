// The events scenario of `npm run bench` (BENCH_ONLY=events runs it alone, with no production
// build): the throughput of two write paths with their audit events recorded, and with the
// recording taken out, in-process on a database of its own: through the REST handler (what an
// API client gets, without the socket) and through the service alone (the database's share, the
// worst case). "Taken out" is a trigger that drops every insert into audit_events before it is
// written, so the difference is what an event costs the database (its row, its indexes, the
// webhook-queue trigger); building the event in JavaScript stays in both. The two modes
// alternate in short rounds, so that the load other processes put on a shared machine falls on
// both alike. Target: recording costs < 10% of the REST write paths' throughput.
import { SCOPES } from "@/schemas/auth";
import { createRestHandler } from "@/server/adapters/rest";
import type { OperatorActor } from "@/server/auth/actor";
import { closeDb, createDb, type Db } from "@/server/db";
import { createApiKey } from "@/server/services/api-keys";
import { provisionEndUser, updateEndUser } from "@/server/services/end-users";
import { createOrganization } from "@/server/services/organizations";

const ROUND_MS = Number(process.env.BENCH_EVENTS_ROUND_MS ?? 3_000);
const ROUNDS = Number(process.env.BENCH_EVENTS_ROUNDS ?? 6);
const CONCURRENCY = 8;

export interface EventsBench {
  paths: { name: string; rest: boolean; withEvents: number; withoutEvents: number; cost: number }[];
}

async function recording(db: Db, on: boolean): Promise<void> {
  await db.$executeRawUnsafe("drop trigger if exists bench_skip_events on audit_events");
  if (!on)
    await db.$executeRawUnsafe(
      "create trigger bench_skip_events before insert on audit_events for each row execute function bench_skip_event()",
    );
}

/** Writes per second of `write` for `ms`, with CONCURRENCY writers. */
async function throughput(write: (n: number) => Promise<unknown>, ms: number): Promise<number> {
  const end = Date.now() + ms;
  let done = 0;
  let next = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < end) {
        await write(next++);
        done++;
      }
    }),
  );
  return done / ((Date.now() - started) / 1000);
}

export async function eventsBench(databaseUrl: string): Promise<EventsBench> {
  const db = createDb(databaseUrl, CONCURRENCY + 2);
  try {
    await db.$executeRawUnsafe(
      "create or replace function bench_skip_event() returns trigger language plpgsql as $$ begin return null; end $$",
    );
    const organization = await createOrganization(db, { name: "Bench events" });
    const operator: OperatorActor = { kind: "operator", organizationId: organization.id };
    const run = Date.now().toString(36);
    const people = await Promise.all(
      Array.from(
        { length: 200 },
        async (_, i) =>
          (await provisionEndUser(db, operator, { email: `person-${run}-${i}@bench.example` })).endUser.id,
      ),
    );
    const key = (await createApiKey(db, operator, { name: "events bench", kind: "organization", scopes: [...SCOPES] }))
      .secret;
    const handler = createRestHandler({ db: () => db });
    const rest = async (method: string, path: string, body: unknown) => {
      const response = await handler(
        new Request(`http://localhost/api/v1${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        }),
      );
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
    };
    const email = (n: number) => `new-${run}-${n}-${Math.random()}@bench.example`;
    const person = (n: number) => people[n % people.length]!;
    const paths: { name: string; rest: boolean; write: (n: number) => Promise<unknown> }[] = [
      {
        name: "POST /api/v1/end-users (one statement)",
        rest: true,
        write: (n) => rest("POST", "/end-users", { email: email(n) }),
      },
      {
        name: "PATCH /api/v1/end-users/{id} (a transaction)",
        rest: true,
        write: (n) => rest("PATCH", `/end-users/${person(n)}`, { fullName: `Name ${n}` }),
      },
      {
        name: "provisionEndUser (service alone)",
        rest: false,
        write: (n) => provisionEndUser(db, operator, { email: email(n) }),
      },
      {
        name: "updateEndUser (service alone)",
        rest: false,
        write: (n) => updateEndUser(db, operator, { endUserId: person(n), fullName: `Name ${n}` }),
      },
    ];
    const results: EventsBench["paths"] = [];
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    for (const path of paths) {
      await throughput(path.write, 1_000); // warm-up
      const rates = { with: [] as number[], without: [] as number[] };
      for (let round = 0; round < ROUNDS; round++) {
        const on = round % 2 === 0;
        await recording(db, on);
        rates[on ? "with" : "without"].push(await throughput(path.write, ROUND_MS));
      }
      await recording(db, true);
      const withEvents = mean(rates.with);
      const withoutEvents = mean(rates.without);
      results.push({
        name: path.name,
        rest: path.rest,
        withEvents: Math.round(withEvents),
        withoutEvents: Math.round(withoutEvents),
        cost: 1 - withEvents / withoutEvents,
      });
    }
    return { paths: results };
  } finally {
    await closeDb(db);
  }
}

export function printEventsBench(bench: EventsBench): void {
  console.log(
    `\nRecording events (${CONCURRENCY} writers, ${ROUNDS} alternating rounds of ${ROUND_MS / 1000} s per path; target: cost < 10% through the REST door)`,
  );
  console.log("| Write path | With events (writes/s) | Without (writes/s) | Cost | Target |");
  console.log("|---|---|---|---|---|");
  for (const path of bench.paths) {
    const cost = path.cost * 100;
    const verdict = path.rest ? (cost < 10 ? "PASS" : "FAIL") : "(the database's share)";
    console.log(`| ${path.name} | ${path.withEvents} | ${path.withoutEvents} | ${cost.toFixed(1)}% | ${verdict} |`);
  }
}
