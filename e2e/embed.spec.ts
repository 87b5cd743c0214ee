// The embedded chat on the organization's own site, from two loopback origins: a tiny test site
// (its "backend" signs tokens with jose) embeds <atrium-chat> on the allowed origin, alice chats
// and her pool is charged; the same page on another origin is refused by the browser (the frame's
// frame-ancestors) and says so; tampered and expired tokens are refused in words; third-party
// cookies are blocked throughout; and the launcher, in the portal's colour, works at phone size.
import { once } from "node:events";
import http from "node:http";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { SignJWT } from "jose";
import config from "../playwright.config";
import { admin, api, seedDemo } from "./fixtures";

const ALICE = "alice@customer.example";
const SITE_PORT = 3311;
const ALLOWED = `http://localhost:${SITE_PORT}`;
// Another origin of the same test site: not in the portal's allowed origins.
const DISALLOWED = `http://127.0.0.1:${SITE_PORT}`;
const ATRIUM = String(config.use?.baseURL);

// The browser refuses third-party cookies, as Safari does and Chrome can.
test.use({
  launchOptions: {
    ...config.use?.launchOptions,
    args: [...(config.use?.launchOptions?.args ?? []), "--test-third-party-cookie-phaseout"],
  },
});

interface Setup {
  key: string;
  portalId: string;
  slug: string;
  appId: string;
  endUserId: string;
  secret: string;
}

let setup: Setup;
let site: http.Server;

/** The organization's backend: a token for alice (or a tampered or expired one, for the refusals). */
async function tokenFor(kind: string | null): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const expired = kind === "expired";
  const token = await new SignJWT({ name: "Alice Martin" })
    .setProtectedHeader({ alg: "HS256" })
    .setAudience(setup.portalId)
    .setSubject(ALICE)
    .setIssuedAt(expired ? now - 1200 : now)
    .setExpirationTime(expired ? now - 600 : now + 600)
    .sign(new TextEncoder().encode(setup.secret));
  return kind === "tampered" ? `${token.slice(0, -4)}AAAA` : token;
}

function sitePage(url: URL): string {
  const mode = url.searchParams.get("mode") ?? "inline";
  const kind = url.searchParams.get("token");
  return `<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Shop</title></head><body><h1>Shop</h1>
<script src="${ATRIUM}/embed.js"></script>
<atrium-chat portal="${setup.slug}" app="${setup.appId}" mode="${mode}"></atrium-chat>
<script>
  fetch("/token${kind ? `?kind=${kind}` : ""}").then((r) => r.text()).then((token) =>
    document.querySelector("atrium-chat").setAttribute("token", token));
</script></body></html>`;
}

async function publishSupport(request: APIRequestContext, key: string): Promise<string> {
  const { knowledgebase } = await api(request, key, "POST", "/knowledgebases", { name: "Support handbook" });
  await api(request, key, "POST", `/knowledgebases/${knowledgebase.id}/pages`, {
    title: "Refund policy",
    markdown: "Refunds are paid within 14 days of the request. Shipping costs are not refunded.",
  });
  const { agent } = await api(request, key, "POST", "/agents", {
    name: "Support agent",
    description: "Invoices, refunds and payments",
    knowledge: [{ knowledgebaseId: knowledgebase.id }],
  });
  await api(request, key, "POST", `/agents/${agent.id}/publish`, {});
  const { app } = await api(request, key, "POST", "/apps", {
    name: "Support",
    members: [{ id: agent.id, kind: "agent" }],
    orchestrationMode: "supervisor",
  });
  await api(request, key, "POST", `/apps/${app.id}/publish`, {});
  return app.id as string;
}

test.beforeAll(async ({ request }) => {
  const demo = await seedDemo();
  const key = demo.orgKey.secret;
  const appId = await publishSupport(request, key);
  const plan = await admin<{ tierPlan: { id: string } }>(
    "plan",
    "create",
    "--org",
    demo.organization.id,
    "--name",
    "Starter",
    "--credits",
    "5",
  );
  const { portal } = await api(request, key, "POST", "/portals", { name: "Help Center", accentColor: "#0b7285" });
  const { endUser } = await api(request, key, "POST", "/end-users", {
    email: ALICE,
    fullName: "Alice Martin",
    tierPlanIds: [plan.tierPlan.id],
    grants: [{ targetKind: "app", targetId: appId, deploymentId: portal.id }],
  });
  await api(request, key, "PATCH", `/portals/${portal.id}`, { embed: { enabled: true, allowedOrigins: [ALLOWED] } });
  const { secret } = await api(request, key, "POST", `/portals/${portal.id}/embed-secret`);
  setup = { key, portalId: portal.id, slug: portal.slug, appId, endUserId: endUser.id, secret };
  site = http.createServer((message, response) => {
    const url = new URL(message.url ?? "/", ALLOWED);
    if (url.pathname === "/token")
      void tokenFor(url.searchParams.get("kind")).then((token) => response.writeHead(200).end(token));
    else response.writeHead(200, { "Content-Type": "text/html" }).end(sitePage(url));
  });
  site.listen(SITE_PORT);
  await once(site, "listening");
});

test.afterAll(() => {
  site?.closeAllConnections();
  site?.close();
});

async function creditsUsed(request: APIRequestContext): Promise<number> {
  const { endUser } = await api(request, setup.key, "GET", `/end-users/${setup.endUserId}`);
  return endUser.subscriptions[0].creditsUsed as number;
}

async function chat(page: Page) {
  const frame = page.frameLocator("atrium-chat iframe");
  await frame.getByRole("textbox", { name: "Message" }).fill("How long do refunds take?");
  await frame.getByRole("button", { name: "Send", exact: true }).click();
  await expect(frame.getByText(/14 days/).first()).toBeVisible({ timeout: 30_000 });
  return frame;
}

test("alice chats inside the shop's page, on her own pool, with third-party cookies blocked", async ({
  page,
  request,
}) => {
  const before = await creditsUsed(request);
  await page.goto(`${ALLOWED}/`);
  const frame = await chat(page);
  await expect(frame.getByTestId("chat-credits-left")).toBeVisible();
  await expect.poll(() => creditsUsed(request)).toBe(before + 1);
  // No cookie of Atrium's reached the frame: the session is in the frame's memory.
  const cookies = await page.context().cookies(ATRIUM);
  expect(cookies.filter((cookie) => cookie.name === "atrium_portal_session")).toEqual([]);
});

test("a page on an origin that is not allowed shows a refusal", async ({ page, request }) => {
  const before = await creditsUsed(request);
  await page.goto(`${DISALLOWED}/`);
  await expect(page.getByRole("alert")).toContainText("can't be shown on this page", { timeout: 30_000 });
  expect(await creditsUsed(request)).toBe(before);
});

for (const kind of ["tampered", "expired"]) {
  test(`a ${kind} token is refused in words`, async ({ page }) => {
    await page.goto(`${ALLOWED}/?token=${kind}`);
    await expect(page.frameLocator("atrium-chat iframe").getByTestId("embed-state")).toContainText("was not accepted");
  });
}

test("at phone size the launcher opens the chat over the page", async ({ page, request }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const before = await creditsUsed(request);
  await page.goto(`${ALLOWED}/?mode=launcher`);
  // The launcher wears the portal's accent colour (#0b7285), with text readable on it.
  const launcher = page.getByRole("button", { name: "Chat" });
  await expect(launcher).toHaveCSS("background-color", "rgb(11, 114, 133)");
  await expect(launcher).toHaveCSS("color", "rgb(255, 255, 255)");
  await launcher.click();
  await chat(page);
  await expect.poll(() => creditsUsed(request)).toBe(before + 1);
  const box = await page.locator("atrium-chat iframe").boundingBox();
  expect(box!.width).toBeGreaterThan(380);
});
