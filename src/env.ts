// Configuration, read from the environment and validated once. Nothing else reads process.env.
import path from "node:path";
import { z } from "zod";

/** A comma-separated setting as its trimmed, non-empty items. */
const commaList = z
  .string()
  .default("")
  .transform((value) =>
    value
      .split(",")
      .map((item) => item.trim())
      .filter(Boolean),
  );

const EnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  /** Any PostgreSQL URL. When unset, an embedded PostgreSQL is started under DATA_DIR. */
  DATABASE_URL: z.string().url().optional(),
  /**
   * Where each process keeps its one LISTEN connection for conversation streams (runtime/run-hub.ts):
   * a direct (session) URL when DATABASE_URL goes through a transaction-mode pooler. Defaults to DATABASE_URL.
   */
  DATABASE_LISTEN_URL: z.string().url().optional(),
  DATA_DIR: z.string().min(1).default(".data"),
  /**
   * The longest one SQL statement of a request or a job may run, in milliseconds (0: no limit): a
   * backstop, so a query stuck behind a lock or a plan gone wrong frees its connection and its
   * request answers 503 instead of holding both until the pool is exhausted.
   */
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  /**
   * The most connections a process's pool opens. A statement holds its connection until the
   * process's event loop reads the answer, so a process busy with many streams gets through about
   * this many statements per turn of its loop: new turns then wait for a connection (issue 53).
   */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(2).max(500).default(10),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(120),
  SESSION_TTL_HOURS: z.coerce.number().positive().default(12),
  /**
   * The origin people open the console and portals at (e.g. https://atrium.example.com): every
   * absolute link Atrium writes (the sign-in link in portal mail, …) starts with it, never with
   * a request's Host or X-Forwarded-Host. Unset: http://localhost:PORT, with a warning at start.
   * An https origin makes session cookies Secure, and the cross-origin check accepts it besides
   * the origin the server itself sees.
   */
  PUBLIC_ORIGIN: z
    .url({ protocol: /^https?$/ })
    .transform((value) => new URL(value).origin)
    .optional(),
  /**
   * How many proxies in front append to X-Forwarded-For; 0 (the default) takes the client
   * address Next.js reports. Sign-in throttling counts failures per client address.
   */
  TRUST_PROXY: z.coerce.number().int().min(0).max(10).default(0),
  /**
   * The V8 old-space limit of the process `npm start` runs (the npm script passes it to node as
   * --max-old-space-size: V8 fixes it when the process starts). Without one V8 lets garbage pile
   * up to gigabytes on a large machine before collecting; with it memory stays near what is live.
   */
  SERVER_HEAP_MB: z.coerce.number().int().min(128).default(320),
  /**
   * V8's semi-space size of that process (--max-semi-space-size, passed the same way): by default
   * V8 grows the young generation to 64 MB, all of it resident once the server is busy; 8 MB keeps
   * about 90 MB off the server's peak at no CPU cost the bench could see (BENCHMARKS.md, 2026-12-05).
   */
  SERVER_YOUNG_MB: z.coerce.number().int().min(1).max(64).default(8),
  /** An OpenAI-compatible endpoint (e.g. https://api.openai.com/v1) for provider models. */
  MODEL_PROVIDER_BASE_URL: z.string().url().optional(),
  MODEL_PROVIDER_API_KEY: z.string().optional(),
  /** Comma-separated model ids offered from that endpoint. */
  MODEL_PROVIDER_MODELS: commaList,
  /** Comma-separated ids among those that accept images attached to a turn (the others are refused one). */
  MODEL_PROVIDER_IMAGE_MODELS: commaList,
  /** The provider's name as GET /models shows it. */
  MODEL_PROVIDER_NAME: z.string().min(1).default("openai-compatible"),
  /**
   * How long a search waits for the organization's chat model to rerank its best results
   * (knowledgebases with `rerank` on); past it the ranking stands as it was.
   */
  RERANK_TIMEOUT_MS: z.coerce.number().int().min(100).max(10_000).default(2000),
  /**
   * A charged run whose process stopped renewing its lease for this long is lost: the sweeper
   * ends it, gives its credit back and records its execution failed (src/server/runtime/run-leases.ts).
   */
  RUN_LOST_AFTER_MS: z.coerce.number().int().min(1000).max(3_600_000).default(60_000),
  /** How long a stopping server lets requests and streams in flight finish (src/cli/http-server.ts). */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(15_000),
  /**
   * Seals the credentials organizations store (model provider keys, MCP connection headers)
   * with AES-256-GCM: at least 32 characters, e.g. `openssl rand -base64 32`. Unset: storing a
   * credential is refused (providers without one still work). Rotation: move the old value to
   * ATRIUM_SECRET_KEY_PREVIOUS, set a new one, run `npm run admin -- secrets rotate`.
   */
  ATRIUM_SECRET_KEY: z.string().min(32).optional(),
  /** The key before the last rotation: still read, never written. */
  ATRIUM_SECRET_KEY_PREVIOUS: z.string().min(32).optional(),
  /**
   * Lets the endpoints an organization's admin configures (model providers, MCP connections)
   * reach private and loopback addresses: for a self-hosted deployment whose servers live on its
   * own network. Never URLs from content, end users or models (URL sources, webScrape, redirects),
   * and never cloud metadata addresses (src/server/integration-urls.ts).
   */
  ALLOW_PRIVATE_INTEGRATION_URLS: z.stringbool().default(false),
  /**
   * A search endpoint for the webSearch built-in: GET <url>?q=<query> answering JSON
   * `{results:[{title,url,snippet}]}` (a SearXNG-style adapter). Unset: webSearch is unavailable.
   */
  WEB_SEARCH_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Serves /api/bench/models, the baseline `npm run bench` compares the API with. */
  BENCH_BASELINE_ROUTE: z.stringbool().default(false),
  /**
   * An SMTP server for mail to end users (sign-in codes), e.g. smtps://user:pass@smtp.example.com:465.
   * Mail is sent only when MAIL_FROM is set too; otherwise it goes to the organization's outbox.
   */
  SMTP_URL: z.string().url().optional(),
  /** The sender of that mail, e.g. "Atrium <no-reply@example.com>". */
  MAIL_FROM: z.string().min(3).optional(),
  /** How long an end user stays signed in to their organization's portals. */
  PORTAL_SESSION_TTL_HOURS: z.coerce
    .number()
    .positive()
    .default(24 * 30),
  /**
   * Browser origins allowed to call /api/v1 directly (CORS), comma-separated, e.g.
   * "https://app.example.com,https://admin.example.com". None by default; the API document
   * (/api/v1/openapi.json) is readable from any origin.
   */
  CORS_ORIGINS: commaList.pipe(z.array(z.url({ protocol: /^https?$/ }).transform((origin) => new URL(origin).origin))),
  /**
   * An OTLP/HTTP collector (e.g. http://localhost:4318): traces of requests, queries, provider
   * and MCP calls and background jobs are sent to <endpoint>/v1/traces. Unset: no tracing.
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  /** The service name the traces carry. */
  OTEL_SERVICE_NAME: z.string().min(1).default("atrium"),
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

/** The origin every absolute link starts with: PUBLIC_ORIGIN, or http://localhost:PORT when it is unset. */
export function publicOrigin(config: Pick<Env, "PUBLIC_ORIGIN" | "PORT"> = env()): string {
  return config.PUBLIC_ORIGIN ?? `http://localhost:${config.PORT}`;
}

/**
 * The environment a child process starts with: this process's own (PATH, HOME and the settings
 * above alike), with `overrides` on top. Handed on whole, not read here: the child reads and
 * validates what it needs itself.
 */
export function childEnv(overrides: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, ...overrides };
}

/**
 * Sets variables for the rest of this process: the launcher (src/cli/start.ts) gives the server
 * it then loads the database it provided, the production mode and the embedded default's secret
 * key (secret-box.ts); child processes it starts inherit them. Later calls of env() see them,
 * and so does Next.js's own copy of this module, which reads process.env when first used.
 */
export function provideEnv(values: {
  DATABASE_URL?: string;
  NODE_ENV?: "production";
  ATRIUM_SECRET_KEY?: string;
}): void {
  Object.assign(process.env, values);
  cached = undefined;
}
