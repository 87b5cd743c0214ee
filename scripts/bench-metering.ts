// The metering scenario of `npm run bench` (BENCH_ONLY=metering runs it alone, with no production
// build): what pricing a conversation turn by its tokens costs the turn, in-process on a database of
// its own, through the REST handler. "Flat" is the built-in model with no price (the turn records
// its tokens and is charged 1 credit once, before it runs); "priced" gives the built-in model a
// price, so each turn reads the organization's prices, reserves its call's ceiling before the call
// and settles the actual charge after it, releasing the rest (contract, "Pricing: credits that
// follow cost"). Turns on behalf of an end user take from their pool as well. The two modes
// alternate in short rounds, so the load other processes put on a shared machine falls on both
// alike. Target (issue 45): the priced turn costs < 10% more time than the flat one. Beside the
// rates, the CPU time each turn took in this process and in PostgreSQL (all its processes), which
// a busy machine disturbs far less than the rates.
import { SCOPES } from "@/schemas/identity/auth";
import { createRestHandler } from "@/server/adapters/rest";
import type { OperatorActor } from "@/server/auth/actor";
import { closeDb, createDb } from "@/server/db";
import { BUILTIN_MODEL_ID } from "@/server/runtime/model-types";
import { createApiKey } from "@/server/services/identity/api-keys";
import { provisionEndUser } from "@/server/services/provisioning/end-users";
import { createOrganization } from "@/server/services/org/organizations";
import { createTierPlan } from "@/server/services/provisioning/tier-plans";
import { readFileSync } from "node:fs";
import { throughput } from "./bench-events";
import { treeCpuSeconds } from "./bench-process";

const ROUND_MS = Number(process.env.BENCH_EVENTS_ROUND_MS ?? 3_000);
const ROUNDS = Number(process.env.BENCH_EVENTS_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_METERING_CONCURRENCY ?? 8);

export interface MeteringBench {
  turns: {
    name: string;
    flat: number;
    priced: number;
    cost: number;
    /** CPU microseconds per turn, this process and PostgreSQL together. */
    flatCpu: number;
    pricedCpu: number;
  }[];
}

/** The PostgreSQL server's pid: the parent of this connection's backend. */
async function postmasterPid(db: ReturnType<typeof createDb>): Promise<number> {
  const { rows } = await db.pool.query<{ pid: number }>("select pg_backend_pid() as pid");
  return Number(readFileSync(`/proc/${rows[0]!.pid}/stat`, "utf8").split(") ")[1]!.split(" ")[1]);
}

export async function meteringBench(databaseUrl: string): Promise<MeteringBench> {
  const db = createDb(databaseUrl, CONCURRENCY + 2);
  try {
    const organization = await createOrganization(db, { name: "Bench metering", credits: 1_000_000_000 });
    const operator: OperatorActor = { kind: "operator", organizationId: organization.id };
    const key = (
      await createApiKey(db, operator, { name: "metering bench", kind: "organization", scopes: [...SCOPES] })
    ).secret;
    const handler = createRestHandler({ db: () => db });
    const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
      const response = await handler(
        new Request(`http://localhost/api/v1${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
      );
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
      return (response.status === 204 ? null : await response.json()) as T;
    };
    const { agent } = await call<{ agent: { id: string } }>("POST", "/agents", {
      name: "Bench agent",
      description: "Answers",
    });
    await call("POST", `/agents/${agent.id}/publish`, {});
    const { app } = await call<{ app: { id: string } }>("POST", "/apps", {
      name: "Bench app",
      orchestrationMode: "sequential",
      members: [{ id: agent.id, kind: "agent" }],
    });
    await call("POST", `/apps/${app.id}/publish`, {});
    // Pools large enough never to run dry: a plan's allowance, for a hundred end users.
    const plan = await createTierPlan(db, operator, { name: "Bench", creditAllowance: 100_000_000, withGroup: false });
    const people = await Promise.all(
      Array.from(
        { length: 100 },
        async (_, i) =>
          (
            await provisionEndUser(db, operator, {
              email: `metered-${i}@bench.example`,
              tierPlanIds: [plan.tierPlan.id],
              grants: [{ targetKind: "app", targetId: app.id, effect: "allow" }],
            })
          ).endUser.id,
      ),
    );
    const turn = (body: Record<string, unknown>) => () =>
      call("POST", `/apps/${app.id}/conversation`, { message: "How long do refunds take?", ...body });
    const turns = [
      { name: "POST /api/v1/apps/{id}/conversation (the organization pays)", write: turn({}) },
      {
        name: "POST /api/v1/apps/{id}/conversation (an end user's pool pays)",
        write: (n: number) => turn({ endUserId: people[n % people.length] })(),
      },
    ];
    let isPriced = false;
    const price = async (priced: boolean) => {
      if (priced === isPriced) return;
      isPriced = priced;
      await (priced
        ? call("PUT", `/model-prices/${BUILTIN_MODEL_ID}`, {
            inputCreditsPerMillion: 1_000,
            outputCreditsPerMillion: 4_000,
            minimumCredits: 1,
          })
        : call("DELETE", `/model-prices/${BUILTIN_MODEL_ID}`));
    };
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    const postgres = await postmasterPid(db);
    const cpuSeconds = () => {
      const own = process.cpuUsage();
      return (own.user + own.system) / 1e6 + treeCpuSeconds(postgres);
    };
    const results: MeteringBench["turns"] = [];
    for (const path of turns) {
      await throughput(path.write, 1_000); // warm-up
      const rates = { flat: [] as number[], priced: [] as number[] };
      const cpu = { flat: { seconds: 0, turns: 0 }, priced: { seconds: 0, turns: 0 } };
      for (let round = 0; round < ROUNDS; round++) {
        for (const priced of [false, true]) {
          await price(priced);
          const mode = priced ? "priced" : "flat";
          const [cpuBefore, started] = [cpuSeconds(), Date.now()];
          const rate = await throughput(path.write, ROUND_MS);
          cpu[mode].seconds += cpuSeconds() - cpuBefore;
          cpu[mode].turns += (rate * (Date.now() - started)) / 1000;
          rates[mode].push(rate);
        }
      }
      const flat = mean(rates.flat);
      const priced = mean(rates.priced);
      const perTurn = (mode: keyof typeof cpu) => Math.round((cpu[mode].seconds / cpu[mode].turns) * 1e6);
      results.push({
        name: path.name,
        flat: Math.round(flat),
        priced: Math.round(priced),
        cost: flat / priced - 1,
        flatCpu: perTurn("flat"),
        pricedCpu: perTurn("priced"),
      });
    }
    return { turns: results };
  } finally {
    await closeDb(db);
  }
}

export function printMeteringBench(bench: MeteringBench): void {
  console.log(
    `\nMetering (${CONCURRENCY} concurrent turns on the built-in model, ${ROUNDS} rounds of ${ROUND_MS / 1000} s per mode, alternating; target: a priced turn takes < 10% longer than a flat one)`,
  );
  console.log(
    "| Turn | Flat (turns/s) | Priced: reserve + settle (turns/s) | Extra time per turn | Target | CPU per turn, flat → priced (µs) | Extra CPU |",
  );
  console.log("|---|---|---|---|---|---|---|");
  for (const turn of bench.turns) {
    const extra = turn.cost * 100;
    const extraCpu = (turn.pricedCpu / turn.flatCpu - 1) * 100;
    console.log(
      `| ${turn.name} | ${turn.flat} | ${turn.priced} | ${extra.toFixed(1)}% | ${extra < 10 ? "PASS" : "FAIL"} | ${turn.flatCpu} → ${turn.pricedCpu} | ${extraCpu.toFixed(1)}% |`,
    );
  }
}
