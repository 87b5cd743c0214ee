// Usage: GET /usage and the refused runs behind its `refusals` (REST and console), one app's, end
// user's or portal's (console) and who is near their limit.
import { z } from "zod";
import {
  ListRefusalsInput,
  ListRefusalsOutput,
  ScopedUsageInput,
  UsageInput,
  UsageReport,
  usageCsv,
  EndUsersNearLimitOutput,
} from "@/schemas/runs/usage";
import { listRefusals } from "@/server/services/runs/run-refusals";
import { endUsersNearLimit, getScopedUsage, getUsage } from "@/server/services/runs/usage";
import { memberCalls, restRouter } from "../../service-procedures";

export const usageRouter = restRouter("Usage", (rest) => ({
  get: rest
    .route("GET", getUsage.requirement, {
      path: "/usage",
      summary: "Credits, runs and failures over time",
      description:
        "Totals and a series per `interval` bucket (UTC; weeks start on Monday) between `from` and `to` (at most 366 days apart; default the last 30 days), read from an hourly rollup: `from` counts from the start of its hour. With `groupBy`, `groups` splits them by app, end user, portal, plan or model (the 50 with the most credits; `id` null for runs without one; a run counts in each model it called). Numbers come from what was charged and run, so `credits` adds up to the balance's movement. Runs refused before they ran are counted in `refusals` by error code, never in `turns`, `transactions` or `failures`. Tokens are every model call's, as reported. `format=csv` answers `text/csv`: a row per bucket, or per group and bucket.",
      csv: "With `format=csv`: the header `start,group_id,group_name,credits,conversations,turns,transactions,testRuns,searches,failures,inputTokens,outputTokens`, then a row per bucket, or per group and bucket",
      input: UsageInput,
      output: UsageReport,
    })
    .query(async ({ ctx, input }) => {
      const report = await getUsage(ctx.db, ctx.actor, input);
      if (input.format === "csv")
        ctx.response.asText = {
          contentType: "text/csv; charset=utf-8",
          render: (output) => usageCsv(output as UsageReport),
        };
      return report;
    }),

  refusals: rest.query(listRefusals, {
    path: "/usage/refusals",
    summary: "Runs refused before they ran",
    description:
      "Each conversation turn, transaction or test run refused before it ran (402 `insufficient_credits`): what `refusals` in GET /usage counts, newest first. Nothing ran, so a refusal is not an execution: no trace, input or credits. Filter by `code`, `appId`, `endUserId` or `portalId`.",
    input: ListRefusalsInput,
    output: ListRefusalsOutput,
  }),

  scoped: memberCalls.queryWith(getScopedUsage, ScopedUsageInput, UsageReport),

  nearLimit: memberCalls.queryWith(
    endUsersNearLimit,
    z.strictObject({ limit: z.number().int().min(1).max(20).default(5) }),
    EndUsersNearLimitOutput,
  ),
}));
