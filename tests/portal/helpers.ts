// Portal fixtures: a published app, a plan, a portal and an end user granted the app there
// (made through the REST API as an organization would), and calls to the portal door with
// real `Request`s, as the browser makes them.
import { createPortalConversationHandler, createPortalHandler } from "@/server/adapters/portal";
import { getDb } from "@/server/db";
import { api, toApiResponse, uniqueSuffix, type ApiResponse } from "../helpers";
import { publishedApp, type PublishedApp } from "../runtime-helpers";

export const ORIGIN = "http://localhost";

let trpcHandler: ((request: Request) => Promise<Response>) | undefined;
let chatHandler: ReturnType<typeof createPortalConversationHandler> | undefined;

export interface PortalCallOptions {
  cookie?: string;
  headers?: Record<string, string>;
}

/** Calls a portal procedure as the browser's tRPC client does (same-origin, JSON). */
export async function portalCall(
  kind: "query" | "mutation",
  procedure: string,
  input: unknown,
  options: PortalCallOptions = {},
): Promise<ApiResponse> {
  trpcHandler ??= createPortalHandler({ db: getDb });
  const headers = new Headers(options.headers);
  if (options.cookie) headers.set("cookie", options.cookie);
  let url = `${ORIGIN}/api/portal/trpc/${procedure}`;
  let init: RequestInit;
  if (kind === "query") {
    url += `?input=${encodeURIComponent(JSON.stringify(input))}`;
    init = { method: "GET", headers };
  } else {
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
    if (!headers.has("origin")) headers.set("origin", ORIGIN);
    init = { method: "POST", headers, body: JSON.stringify(input) };
  }
  return toApiResponse(await trpcHandler(new Request(url, init)));
}

/** The product error code of a portal (tRPC) error response. */
export function errorCode(response: ApiResponse): string | undefined {
  return response.body?.error?.data?.appError?.code;
}

/** POSTs to the portal chat stream; the raw Response (SSE or a JSON refusal). */
export async function portalChat(
  portal: string,
  appId: string,
  body: unknown,
  options: PortalCallOptions & { rawBody?: string; signal?: AbortSignal } = {},
): Promise<Response> {
  chatHandler ??= createPortalConversationHandler({ db: getDb });
  const headers = new Headers({ "content-type": "application/json", origin: ORIGIN, ...options.headers });
  if (options.cookie) headers.set("cookie", options.cookie);
  const request = new Request(`${ORIGIN}/api/portal/${portal}/apps/${appId}/conversation`, {
    method: "POST",
    headers,
    body: options.rawBody ?? JSON.stringify(body),
    signal: options.signal,
  });
  return chatHandler(request, portal, appId);
}

export interface PortalScenario extends PublishedApp {
  portal: { id: string; slug: string; name: string };
  plan: { id: string; name: string };
  endUser: { id: string; email: string };
}

/**
 * The outcome, set up: alice with the Starter plan (`credits` in her pool) and a grant
 * to the app in the Help Center portal.
 */
export async function portalScenario(
  options: {
    credits?: number;
    orgCredits?: number;
    billingModel?: string;
    supportModel?: string;
    app?: Record<string, unknown>;
  } = {},
): Promise<PortalScenario> {
  const app = await publishedApp({
    tenant: { credits: options.orgCredits ?? 1000 },
    billingModel: options.billingModel,
    supportModel: options.supportModel,
    app: options.app,
  });
  const suffix = uniqueSuffix();
  const portal = await api("POST", "/portals", {
    key: app.key,
    body: { name: "Help Center", slug: `help-center-${suffix}` },
  });
  if (portal.status !== 201) throw new Error(`portal: ${portal.status} ${portal.text}`);
  const plan = await getDb().tierPlan.create({
    data: { organizationId: app.tenant.organization.id, name: "Starter", creditAllowance: options.credits ?? 100 },
  });
  const email = `alice-${suffix}@customer.example`;
  const endUser = await api("POST", "/end-users", {
    key: app.key,
    body: {
      email,
      fullName: "Alice",
      tierPlanIds: [plan.id],
      grants: [{ targetKind: "app", targetId: app.appId, deploymentId: portal.body.portal.id }],
    },
  });
  if (endUser.status !== 201) throw new Error(`end user: ${endUser.status} ${endUser.text}`);
  return {
    ...app,
    portal: { id: portal.body.portal.id, slug: portal.body.portal.slug, name: portal.body.portal.name },
    plan: { id: plan.id, name: plan.name },
    endUser: { id: endUser.body.endUser.id, email },
  };
}

/**
 * The code in the `nth` outbox message to this address (1 = the first), waiting for it: codes
 * are stored and mailed after the answer to the request.
 */
export async function codeFromOutbox(organizationId: string, email: string, nth = 1): Promise<string | undefined> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const messages = await getDb().outboxMessage.findMany({
      where: { organizationId, to: email },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    const message = messages[nth - 1];
    if (message) return message.text.match(/\b(\d{6})\b/)?.[1];
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
  return undefined;
}

/** Signs in through the portal door with the code from the outbox; the `Cookie` header value. */
export async function signIn(
  scenario: { portal: { slug: string }; tenant: { organization: { id: string } } },
  email: string,
  headers: Record<string, string> = clientAddress(),
): Promise<string> {
  const sent = await getDb().outboxMessage.count({
    where: { organizationId: scenario.tenant.organization.id, to: email },
  });
  const requested = await portalCall(
    "mutation",
    "auth.requestCode",
    { portal: scenario.portal.slug, email },
    { headers },
  );
  if (requested.status !== 200) throw new Error(`requestCode: ${requested.status} ${requested.text}`);
  const code = await codeFromOutbox(scenario.tenant.organization.id, email, sent + 1);
  if (!code) throw new Error("no code in the outbox");
  const verified = await portalCall(
    "mutation",
    "auth.verifyCode",
    { portal: scenario.portal.slug, email, code },
    { headers },
  );
  if (verified.status !== 200) throw new Error(`verifyCode: ${verified.status} ${verified.text}`);
  return verified.headers.get("set-cookie")!.split(";")[0]!;
}

/** A distinct client address per test, so sign-in throttles of one test never touch another. */
export function clientAddress(): Record<string, string> {
  const n = () => Math.floor(Math.random() * 250) + 1;
  return { "x-forwarded-for": `10.${n()}.${n()}.${n()}` };
}
