import { createMetricsHandler } from "@/server/adapters/metrics";
import { getDb } from "@/server/db";
import { observed } from "@/server/observability/observe";

export const dynamic = "force-dynamic";

export const GET = observed("/api/metrics", createMetricsHandler({ db: getDb }));
