// Log lines an operator acts on, at warn: refused sign-ins (someone guessing, or a person locked
// out), runs that failed or were cancelled, model and MCP providers failing. One shape per kind,
// so that a log stack can alert on `event`.
import { logger } from "./log";

/** A sign-in refused at a door (wrong password or code, or throttled); the error is re-thrown by the caller. */
export function logRefusedSignIn(
  door: "console" | "portal",
  details: { email: string; clientAddress: string; code: string; portal?: string },
): void {
  logger().warn({ event: "sign_in_refused", door, ...details }, `Sign-in refused (${door}): ${details.code}`);
}

/** A run recorded as anything but succeeded. */
export function logUnsuccessfulRun(details: {
  organizationId: string;
  executionId: string;
  kind: string;
  itemId: string;
  status: string;
  error?: string | null;
}): void {
  logger().warn(
    { event: "run_unsuccessful", ...details },
    `Run ${details.status}: ${details.error ?? "no reason recorded"}`,
  );
}

/** A model provider or an MCP server failed or timed out. */
export function logProviderFailure(details: {
  organizationId: string;
  provider: "model" | "mcp";
  name?: string;
  err: unknown;
}): void {
  logger().warn(
    { event: "provider_failed", ...details },
    `A ${details.provider === "model" ? "model provider" : "MCP server"} failed or timed out`,
  );
}
