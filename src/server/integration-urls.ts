// URLs an organization gives Atrium to call on its behalf (its model providers, its MCP servers,
// the webScrape tool) pass the same SSRF guard as URL sources: public addresses only, unless the
// operator sets ALLOW_PRIVATE_INTEGRATION_URLS for a self-hosted deployment. The check runs when
// the URL is written and again before every request, since DNS answers change, and each request
// connects to the address that was checked (fetch-url.ts's pinnedFetch), not to a second answer.
import { env } from "@/env";
import { invalidRequest } from "@/server/errors";
import { assertPublicUrl, FetchRefused, pinnedFetch } from "@/server/jobs/fetch-url";

export function privateIntegrationUrlsAllowed(): boolean {
  return env().ALLOW_PRIVATE_INTEGRATION_URLS;
}

/** Refuses a URL the guard refuses; throws FetchRefused with a reason a person can act on. */
export async function checkIntegrationUrl(url: string): Promise<void> {
  if (privateIntegrationUrlsAllowed()) {
    const parsed = URL.canParse(url) ? new URL(url) : null;
    if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) throw new FetchRefused(`${url} is not an http(s) URL.`);
    return;
  }
  await assertPublicUrl(url);
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

/** fetch for clients that make their own requests: every request's URL is checked, and its connection pinned to the checked address. */
export const guardedFetch: typeof globalThis.fetch = async (input, init) => {
  if (!privateIntegrationUrlsAllowed()) return pinnedFetch(input, init);
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  await checkIntegrationUrl(url);
  return fetch(input, init);
};
