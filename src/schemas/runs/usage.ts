// Usage (GET /usage): what the organization charged and ran over time, read from the hourly
// rollup (src/server/services/runs/usage.ts). Buckets are in UTC; weeks start on Monday.
import { z } from "zod";
import { ListQuery, NextCursor, TimestampInput, Uuid } from "../common";
import { PortalRef } from "../portal/portal";

export const USAGE_METRICS = [
  "credits",
  "conversations",
  "turns",
  "transactions",
  "testRuns",
  "searches",
  "failures",
  "inputTokens",
  "outputTokens",
] as const;
export type UsageMetric = (typeof USAGE_METRICS)[number];
export const USAGE_INTERVALS = ["day", "week", "month"] as const;
export type UsageInterval = (typeof USAGE_INTERVALS)[number];
export const USAGE_GROUPS = ["app", "end_user", "portal", "plan", "model"] as const;
export type UsageGroupBy = (typeof USAGE_GROUPS)[number];

/** The widest window one request may ask for. */
export const USAGE_MAX_DAYS = 366;
export const USAGE_DEFAULT_DAYS = 30;
/** Groups beyond these, ranked by credits then turns, are left out (the totals still count them). */
export const USAGE_MAX_GROUPS = 50;

const Time = TimestampInput;

export const UsageInput = z.strictObject({
  from: Time.optional().meta({
    description: `Start (ISO time, taken at its UTC hour); default ${USAGE_DEFAULT_DAYS} days before \`to\``,
  }),
  to: Time.optional().meta({
    description: `End, exclusive (ISO time); default now. At most ${USAGE_MAX_DAYS} days after \`from\``,
  }),
  interval: z.enum(USAGE_INTERVALS).default("day").meta({ description: "Bucket size, in UTC; weeks start on Monday" }),
  groupBy: z
    .enum(USAGE_GROUPS)
    .optional()
    .meta({
      description: `Also split by app, end user, portal, plan or model (the ${USAGE_MAX_GROUPS} largest by credits)`,
    }),
  format: z
    .enum(["json", "csv"])
    .default("json")
    .meta({ description: "`csv`: one row per bucket (and group), as text/csv" }),
});
export type UsageInput = z.input<typeof UsageInput>;

const Count = z.number().int();
export const UsageMetrics = z
  .object({
    credits: Count.meta({ description: "Credits charged (refunds already taken off)" }),
    conversations: Count.meta({ description: "Conversations started" }),
    turns: Count.meta({ description: "Conversation turns run (failed ones included)" }),
    transactions: Count,
    testRuns: Count.meta({ description: "Test cases run" }),
    searches: Count.meta({ description: "Charged document searches" }),
    failures: Count.meta({ description: "Runs that ended failed or output_invalid" }),
    inputTokens: Count.meta({ description: "As the providers report them (the built-in model: its estimate)" }),
    outputTokens: Count,
  })
  .meta({ id: "UsageMetrics" });
export type UsageMetrics = z.infer<typeof UsageMetrics>;

export const UsagePoint = z
  .object({
    start: z.string().meta({ description: "The bucket's start (UTC); the metrics as in UsageMetrics" }),
    credits: Count,
    conversations: Count,
    turns: Count,
    transactions: Count,
    testRuns: Count,
    searches: Count,
    failures: Count,
    inputTokens: Count,
    outputTokens: Count,
  })
  .meta({ id: "UsagePoint" });
export type UsagePoint = z.infer<typeof UsagePoint>;

export const UsageGroup = z
  .object({
    id: Uuid.nullable().meta({
      description:
        "The app, end user, portal or plan; null for runs without one (the organization's own). By model: `name` is its id",
    }),
    name: z.string(),
    totals: UsageMetrics,
    series: z.array(UsagePoint),
  })
  .meta({ id: "UsageGroup" });
export type UsageGroup = z.infer<typeof UsageGroup>;

export const UsageReport = z.object({
  from: z.string(),
  to: z.string(),
  interval: z.enum(USAGE_INTERVALS),
  totals: UsageMetrics,
  series: z.array(UsagePoint),
  groups: z.array(UsageGroup).optional(),
  refusals: z.record(z.string(), Count).meta({
    description:
      "Runs refused before they ran, by error code (`insufficient_credits`: demand that hit a limit); never counted in `turns`, `transactions` or `failures`",
  }),
});
export type UsageReport = z.infer<typeof UsageReport>;

/** The console's usage of one end user (their page) or one app. */
export const ScopedUsageInput = z.strictObject({
  from: Time.optional(),
  to: Time.optional(),
  interval: z.enum(USAGE_INTERVALS).default("day"),
  endUserId: Uuid.optional(),
  appId: Uuid.optional(),
  portalId: Uuid.optional(),
});

/** An error code as the envelope carries it: lowercase words joined by underscores. */
const ErrorCode = z
  .string()
  .max(64)
  .regex(/^[a-z_]+$/)
  .meta({ description: "An error code, e.g. `insufficient_credits`" });

/** GET /usage/refusals: the runs refused before they ran, newest first. */
export const ListRefusalsInput = ListQuery.extend({
  code: ErrorCode.optional().meta({ description: "Only refusals answered with this code" }),
  appId: Uuid.optional().meta({
    description: "Only refusals of this app (for test runs: the agent, flow or app tested)",
  }),
  endUserId: Uuid.optional().meta({ description: "Only refusals of runs for this end user" }),
  portalId: Uuid.optional().meta({ description: "Only refusals in this portal" }),
});

export const Refusal = z
  .object({
    id: Uuid,
    code: z.string().meta({ description: "The error code the caller was answered with" }),
    appId: Uuid.nullable(),
    appKind: z.enum(["agent", "flow", "app"]).nullable().meta({ description: "null when the app was deleted" }),
    appName: z.string().nullable(),
    endUserId: Uuid.nullable(),
    endUserEmail: z.string().nullable(),
    portalId: Uuid.nullable(),
    portalName: z.string().nullable(),
    planId: Uuid.nullable().meta({ description: "The plan of the pool the end user's next charge would have taken" }),
    planName: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: "Refusal" });
export type Refusal = z.infer<typeof Refusal>;
export const ListRefusalsOutput = z.object({ refusals: z.array(Refusal), nextCursor: NextCursor });

/** The portal: the signed-in end user's own credits by day over this month (UTC). */
export const PortalUsageInput = z.strictObject({ portal: PortalRef });
export const PortalUsage = z.object({
  from: z.string(),
  to: z.string(),
  total: Count,
  series: z.array(z.object({ start: z.string(), credits: Count })),
});
export type PortalUsage = z.infer<typeof PortalUsage>;

/** The usage report as CSV: a row per bucket, and per group and bucket when grouped. */
export function usageCsv(report: UsageReport): string {
  // A leading = + - @ would make a spreadsheet read a name as a formula: it is kept as text.
  const quote = (text: string) => {
    const value = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
    return /[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
  };
  const rows = [["start", "group_id", "group_name", ...USAGE_METRICS].join(",")];
  const line = (point: UsagePoint, id: string, name: string) =>
    rows.push([point.start, id, quote(name), ...USAGE_METRICS.map((metric) => String(point[metric]))].join(","));
  if (report.groups)
    for (const group of report.groups) for (const point of group.series) line(point, group.id ?? "", group.name);
  else for (const point of report.series) line(point, "", "");
  return `${rows.join("\r\n")}\r\n`;
}

/** End users closest to their pools' allowance (the console home). */
export const EndUsersNearLimitOutput = z.object({
  endUsers: z.array(
    z.object({
      id: z.string(),
      email: z.string(),
      fullName: z.string(),
      used: z.number().int(),
      allowance: z.number().int(),
    }),
  ),
});
