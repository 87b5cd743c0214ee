// Configuration, read from the environment and validated once. Nothing else reads process.env.
import path from "node:path";
import { z } from "zod";

const EnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  /** Any PostgreSQL URL. When unset, an embedded PostgreSQL is started under DATA_DIR. */
  DATABASE_URL: z.string().url().optional(),
  DATA_DIR: z.string().min(1).default(".data"),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(120),
  SESSION_TTL_HOURS: z.coerce.number().positive().default(12),
  /**
   * The server process's V8 old-space limit. Without one V8 lets garbage pile up to gigabytes
   * on a large machine before collecting; with it memory stays near what is live.
   */
  SERVER_HEAP_MB: z.coerce.number().int().min(128).default(320),
  /** An OpenAI-compatible endpoint (e.g. https://api.openai.com/v1) for provider models. */
  MODEL_PROVIDER_BASE_URL: z.string().url().optional(),
  MODEL_PROVIDER_API_KEY: z.string().optional(),
  /** Comma-separated model ids offered from that endpoint. */
  MODEL_PROVIDER_MODELS: z
    .string()
    .default("")
    .transform((value) => value.split(",").map((id) => id.trim()).filter(Boolean)),
  /** The provider's name as GET /models shows it. */
  MODEL_PROVIDER_NAME: z.string().min(1).default("openai-compatible"),
  /** Serves /api/bench/models, the baseline `npm run bench` compares the API with. */
  BENCH_BASELINE_ROUTE: z.stringbool().default(false),
  /** pino's level for the JSON log lines on stdout: fatal, error, warn, info, debug, trace or silent. */
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** Bearer token for GET /api/metrics (Prometheus). Unset: the endpoint answers 404. */
  METRICS_TOKEN: z.string().min(16).optional(),
});

export type Env = z.infer<typeof EnvSchema> & { dataDir: string };

let cached: Env | undefined;

export function env(): Env {
  if (!cached) {
    const parsed = EnvSchema.safeParse(process.env);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
      throw new Error(`Invalid configuration: ${problems}`);
    }
    cached = { ...parsed.data, dataDir: path.resolve(process.cwd(), parsed.data.DATA_DIR) };
  }
  return cached;
}
