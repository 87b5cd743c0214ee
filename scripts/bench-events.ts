// The events scenario of `npm run bench` (BENCH_ONLY=events runs it alone, with no production
// build): what each recording path costs a write, against the bare write, in-process on a database
// of its own, through the REST handler (what an API client gets, without the socket) and through
// the service alone (the database's share, the worst case). The recording paths: the audit event
// (its row and indexes), the webhook (an enabled endpoint subscribed to every event: the event's
// delivery queued by the outbox trigger) and, for a conversation turn, the usage rollup (its rows
// by hour, day and month). "Bare" is a trigger that drops every insert into audit_events and
// usage_rollup before it is written, with the endpoint disabled; building the event in JavaScript
// stays in every mode. The modes alternate in short rounds, so that the load other processes put
// on a shared machine falls on all alike. Target (issue 53): all of them together cost < 10% of
// the REST write's throughput.
import { SCOPES } from "@/schemas/identity/auth";
import { createRestHandler } from "@/server/adapters/rest";
import type { OperatorActor } from "@/server/auth/actor";
import { closeDb, createDb, type Db } from "@/server/db";
import { createApiKey } from "@/server/services/identity/api-keys";
import { provisionEndUser } from "@/server/services/provisioning/end-users";
import { updateEndUser } from "@/server/services/provisioning/end-user-changes";
import { createOrganization } from "@/server/services/org/organizations";

const ROUND_MS = Number(process.env.BENCH_EVENTS_ROUND_MS ?? 3_000);
const ROUNDS = Number(process.env.BENCH_EVENTS_ROUNDS ?? 3);
const CONCURRENCY = 8;

export interface EventsBench {
  paths: { name: string; rest: boolean; bare: number; modes: { name: string; rate: number; cost: number }[] }[];
}

/** What a mode records: the audit event, the webhook's delivery, the usage rollup. */
interface Mode {
  name: string;
  audit: boolean;
  webhook: boolean;
  usage: boolean;
}

const BARE: Mode = { name: "bare", audit: false, webhook: false, usage: false };
const MODES: Mode[] = [
  { name: "audit event", audit: true, webhook: false, usage: false },
  { name: "audit event + webhook", audit: true, webhook: true, usage: false },
  { name: "audit event + webhook + usage rollup", audit: true, webhook: true, usage: true },
];

async function recording(db: Db, organizationId: string, mode: Mode): Promise<void> {
  for (const table of ["audit_events", "usage_rollup", "usage_models"]) {
    await db.$executeRawUnsafe(`drop trigger if exists bench_skip on ${table}`);
  }
  const skipped = [...(mode.audit ? [] : ["audit_events"]), ...(mode.usage ? [] : ["usage_rollup", "usage_models"])];
  for (const table of skipped) {
    await db.$executeRawUnsafe(
      `create trigger bench_skip before insert on ${table} for each row execute function bench_skip_event()`,
    );
  }
  await db.webhookEndpoint.updateMany({ where: { organizationId }, data: { enabled: mode.webhook } });
}

/** Writes per second of `write` for `ms`, with CONCURRENCY writers. */
export async function throughput(write: (n: number) => Promise<unknown>, ms: number): Promise<number> {
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
    const organization = await createOrganization(db, { name: "Bench events", credits: 1_000_000_000 });
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
    const post = async <T>(path: string, body: unknown): Promise<T> => {
      const response = await handler(
        new Request(`http://localhost/api/v1${path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        }),
      );
      if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
      return (await response.json()) as T;
    };
    // A webhook endpoint subscribed to every event (never called: no worker runs here).
    await db.webhookEndpoint.create({
      data: {
        organizationId: organization.id,
        url: "https://hooks.invalid/atrium",
        eventTypes: ["*"],
        secret: "unused",
      },
    });
    // A published one-agent app on the built-in model, for conversation turns.
    const { agent } = await post<{ agent: { id: string } }>("/agents", { name: "Bench agent", description: "Answers" });
    await post(`/agents/${agent.id}/publish`, {});
    const { app } = await post<{ app: { id: string } }>("/apps", {
      name: "Bench app",
      orchestrationMode: "sequential",
      members: [{ id: agent.id, kind: "agent" }],
    });
    await post(`/apps/${app.id}/publish`, {});
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
        name: "POST /api/v1/apps/{id}/conversation (built-in model)",
        rest: true,
        write: () => rest("POST", `/apps/${app.id}/conversation`, { message: "How long do refunds take?" }),
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
      const rates = new Map<Mode, number[]>([BARE, ...MODES].map((mode) => [mode, []]));
      for (let round = 0; round < ROUNDS; round++) {
        // Bare, then each mode, then bare again…: every mode sits beside a bare round.
        for (const mode of [BARE, ...MODES]) {
          await recording(db, organization.id, mode);
          rates.get(mode)!.push(await throughput(path.write, ROUND_MS));
        }
      }
      await recording(db, organization.id, MODES.at(-1)!);
      const bare = mean(rates.get(BARE)!);
      results.push({
        name: path.name,
        rest: path.rest,
        bare: Math.round(bare),
        modes: MODES.map((mode) => {
          const rate = mean(rates.get(mode)!);
          return { name: mode.name, rate: Math.round(rate), cost: 1 - rate / bare };
        }),
      });
    }
    return { paths: results };
  } finally {
    await closeDb(db);
  }
}

export function printEventsBench(bench: EventsBench): void {
  console.log(
    `\nRecording paths (${CONCURRENCY} writers, ${ROUNDS} rounds of ${ROUND_MS / 1000} s per mode and path, modes alternating; target: everything together < 10% over the bare write through the REST door)`,
  );
  console.log(`| Write path | Bare (writes/s) | ${MODES.map((mode) => `+ ${mode.name}`).join(" | ")} | Target |`);
  console.log(`|---|---|${MODES.map(() => "---").join("|")}|---|`);
  for (const path of bench.paths) {
    const all = path.modes.at(-1)!.cost * 100;
    const verdict = path.rest ? (all < 10 ? "PASS" : "FAIL") : "(the database's share)";
    const cells = path.modes.map((mode) => `${mode.rate} (${(mode.cost * 100).toFixed(1)}%)`);
    console.log(`| ${path.name} | ${path.bare} | ${cells.join(" | ")} | ${verdict} |`);
  }
}
