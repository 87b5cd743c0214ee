// OpenTelemetry traces, exported over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set and
// nothing otherwise. Spans are made at Atrium's own seams rather than by patching modules: each
// HTTP request (src/server/http/listener.ts, continuing a caller's `traceparent`), each PostgreSQL
// query (the pool's connections, src/server/db.ts), each model provider call (the AI SDK's own
// telemetry) with `traceparent` sent on to the provider, each MCP tool call and each background
// job. Without a provider registered, the API's tracer is a no-op and these cost next to nothing.
import {
  context,
  INVALID_SPAN_CONTEXT,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
} from "@opentelemetry/api";
import type { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { env } from "@/env";

const TRACER_NAME = "atrium";
let provider: NodeTracerProvider | null = null;

export interface TracingOptions {
  /** The OTLP base URL (e.g. http://collector:4318); spans go to `<endpoint>/v1/traces`. */
  endpoint?: string;
  serviceName?: string;
}

/**
 * Starts exporting when an endpoint is configured; returns whether tracing is on. Idempotent.
 * The SDK and its exporter (about 2 MB of code) are loaded only then.
 */
export async function startTracing(options: TracingOptions = {}): Promise<boolean> {
  if (provider) return true;
  const endpoint = options.endpoint ?? env().OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint) return false;
  const [{ OTLPTraceExporter }, { resourceFromAttributes }, { BatchSpanProcessor, NodeTracerProvider }] =
    await Promise.all([
      import("@opentelemetry/exporter-trace-otlp-http"),
      import("@opentelemetry/resources"),
      import("@opentelemetry/sdk-trace-node"),
    ]);
  if (provider) return true;
  provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": options.serviceName ?? env().OTEL_SERVICE_NAME }),
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, "")}/v1/traces` })),
    ],
  });
  // The global tracer provider, AsyncLocalStorage for the active span and W3C trace context.
  provider.register();
  return true;
}

export function tracingEnabled(): boolean {
  return provider !== null;
}

/** Sends what is buffered (tests; a stopping server). */
export async function flushTraces(): Promise<void> {
  await provider?.forceFlush();
}

export async function stopTracing(): Promise<void> {
  const stopping = provider;
  provider = null;
  await stopping?.shutdown();
  trace.disable();
  propagation.disable();
  context.disable();
}

export function tracer() {
  return trace.getTracer(TRACER_NAME);
}

/** Runs `work` in a span (a child of the active one), recording a thrown error; the span ends with it. */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  if (!provider) return work(trace.wrapSpanContext(INVALID_SPAN_CONTEXT));
  return tracer().startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      failSpan(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

export function failSpan(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/** The trace context of incoming headers (`traceparent`, `tracestate`), for a server span's parent. */
export function contextFromHeaders(headers: Record<string, string | string[] | undefined>) {
  return propagation.extract(context.active(), headers);
}

/** A fetch that sends the active trace context on (`traceparent`), for calls to providers and MCP servers. */
export function propagatingFetch(next: typeof globalThis.fetch = globalThis.fetch): typeof globalThis.fetch {
  return (input, init) => {
    if (!provider) return next(input, init);
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    const carrier: Record<string, string> = {};
    propagation.inject(context.active(), carrier);
    for (const [name, value] of Object.entries(carrier)) headers.set(name, value);
    return next(input, { ...init, headers });
  };
}

type Query = (...args: unknown[]) => unknown;

/**
 * Makes a span of each query a pooled connection sends (Prisma's and the plain SQL of the hot
 * paths alike), while tracing is on: the statement's text (parameters are never in it), its
 * first word, and a failure. Cursors and other submittables pass through untraced.
 */
export function traceQueries(client: { query: Query }): void {
  const send = client.query.bind(client) as Query;
  client.query = (...args: unknown[]) => {
    const first = args[0] as { submit?: unknown; text?: unknown } | string | undefined;
    if (!provider || (typeof first === "object" && typeof first?.submit === "function")) return send(...args);
    const text = typeof first === "string" ? first : typeof first?.text === "string" ? first.text : "";
    const operation = text.trimStart().split(" ", 1)[0]?.toUpperCase() ?? "";
    const span = tracer().startSpan(`pg ${operation}`.trim(), {
      kind: SpanKind.CLIENT,
      attributes: {
        "db.system.name": "postgresql",
        "db.operation.name": operation,
        "db.query.text": text.slice(0, 2000),
      },
    });
    const done = (error: unknown) => {
      if (error) failSpan(span, error);
      span.end();
    };
    const last = args.at(-1);
    if (typeof last === "function") {
      args[args.length - 1] = (error: unknown, result: unknown) => {
        done(error);
        (last as (error: unknown, result: unknown) => void)(error, result);
      };
      return send(...args);
    }
    return (send(...args) as Promise<unknown>).then(
      (result) => {
        done(null);
        return result;
      },
      (error: unknown) => {
        done(error);
        throw error;
      },
    );
  };
}
