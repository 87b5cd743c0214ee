// One JSON line per event on stdout (pino), for any log stack to collect; level from LOG_LEVEL.
// Created on first use, like the configuration it reads.
import pino from "pino";
import { env } from "@/env";

const globalForLog = globalThis as unknown as { atriumLogger?: pino.Logger };

export function logger(): pino.Logger {
  return (globalForLog.atriumLogger ??= pino({ level: env().LOG_LEVEL, base: { service: "atrium" } }));
}
