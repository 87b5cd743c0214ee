// Which addresses each kind of outgoing request may reach (fetch-url.ts's FetchPolicy), with the
// operator's ALLOW_PRIVATE_INTEGRATION_URLS read here and nowhere else. URLs an organization's
// admin configures (its model providers, its MCP servers) are integrations: public addresses
// only, unless the operator allows private ones for a self-hosted deployment. URLs from content,
// end users or a model (URL sources, webScrape) are content: public addresses only, always.
// Cloud metadata addresses are refused for every purpose. An integration URL is checked when it
// is written and again before every request, since DNS answers change, and each request connects
// to the address that was checked (pinnedFetch), not to a second answer.
import { env } from "@/env";
import { invalidRequest } from "@/server/errors";
import {
  assertReachableUrl,
  FetchRefused,
  pinnedFetch,
  type FetchLimits,
  type FetchPolicy,
  type FetchPurpose,
} from "@/server/jobs/fetch-url";

/** The policy of a purpose: the caller says which kind of URL it fetches, this decides what it may reach. */
export function fetchPolicy(purpose: FetchPurpose, limits: FetchLimits = {}): FetchPolicy {
  if (purpose === "integration") return { ...limits, purpose, privateAddresses: privateIntegrationUrlsAllowed() };
  return { ...limits, purpose };
}

/** Whether the operator lets integrations reach private addresses (and so plain-http issuers, for tests and self-hosting). */
export function privateIntegrationUrlsAllowed(): boolean {
  return env().ALLOW_PRIVATE_INTEGRATION_URLS;
}

/** Refuses a URL the guard refuses; throws FetchRefused with a reason a person can act on. */
export async function checkIntegrationUrl(url: string): Promise<void> {
  await assertReachableUrl(url, fetchPolicy("integration"));
}

/** The write-time check: a refused URL is a 400 naming the field, nothing written. */
export async function requireIntegrationUrl(url: string, field: string): Promise<void> {
  try {
    await checkIntegrationUrl(url);
  } catch (error) {
    if (!(error instanceof FetchRefused)) throw error;
    throw invalidRequest([{ path: field, message: error.message }]);
  }
}

/** fetch for an integration's client (model provider, MCP server): every request's URL checked, its connection pinned, no redirect followed. */
export const guardedFetch: typeof globalThis.fetch = (input, init) =>
  pinnedFetch(input, init, fetchPolicy("integration"));

/** fetch for the endpoints in the operator's configuration (MODEL_PROVIDER_BASE_URL, WEB_SEARCH_URL): any address but a metadata one. */
export const deploymentFetch: typeof globalThis.fetch = (input, init) =>
  pinnedFetch(input, init, fetchPolicy("deployment"));
