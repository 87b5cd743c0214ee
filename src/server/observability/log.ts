// One JSON line per event on stdout (pino), for any log stack to collect; level from LOG_LEVEL.
// Created on first use, like the configuration it reads.
import pino from "pino";
import { env } from "@/env";

const globalForLog = globalThis as unknown as { atriumLogger?: pino.Logger };

export function logger(): pino.Logger {
  return (globalForLog.atriumLogger ??= pino({ level: env().LOG_LEVEL, base: { service: "atrium" } }));
}

/** How long logThrottled() keeps quiet about a kind after logging it. */
export const LOG_THROTTLE_MS = 5_000;

const throttled = new Map<string, { until: number; suppressed: number }>();

/**
 * Logs one line per `kind` every LOG_THROTTLE_MS at most; the next line of that kind says how
 * many were left out (`suppressed`). For failures that come in floods: a database outage fails
 * every request the same way. Kinds are few (a code, an error's first line), so the map stays small.
 */
export function logThrottled(
  level: "error" | "warn",
  kind: string,
  fields: Record<string, unknown>,
  message: string,
  now: number = Date.now(),
): void {
  const window = throttled.get(kind);
  if (window && now < window.until) {
    window.suppressed++;
    return;
  }
  const suppressed = window?.suppressed ?? 0;
  throttled.set(kind, { until: now + LOG_THROTTLE_MS, suppressed: 0 });
  if (suppressed === 0) logger()[level](fields, message);
  else logger()[level]({ ...fields, suppressed }, `${message} (and ${suppressed} more like it since the last line)`);
}
