// The console in a real browser against a production build: a page on another port of the same
// host (the same *site*, so the browser sends the session cookie) cannot run the console chat
// or sign the person out; every response carries a request id and the security headers; and
// the console's own pages run under its Content-Security-Policy without a violation.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { seedDemo, signedInDemo } from "./fixtures";

async function post(request: APIRequestContext, key: string, path: string, data: unknown) {
  const response = await request.post(`/api/v1${path}`, { headers: { Authorization: `Bearer ${key}` }, data });
  if (!response.ok()) throw new Error(`POST ${path}: ${response.status()} ${await response.text()}`);
  return response.json();
}

async function seedApp(request: APIRequestContext, key: string): Promise<string> {
  const { agent } = await post(request, key, "/agents", { name: "Support agent", description: "Answers questions" });
  await post(request, key, `/agents/${agent.id}/publish`, {});
  const { app } = await post(request, key, "/apps", {
    name: "Helpdesk",
    members: [{ id: agent.id, kind: "agent" }],
    orchestrationMode: "supervisor",
  });
  await post(request, key, `/apps/${app.id}/publish`, {});
  return app.id as string;
}

/** The signed-in person's organization as the console sees it, or null when signed out. */
async function me(page: Page): Promise<{ credits: number } | null> {
  const response = await page.request.get("/api/trpc/auth.me");
  if (response.status() === 401) return null;
  return (await response.json()).result.data.organization;
}

/** Serves one HTML page from a port of its own on 127.0.0.1: the attacker's page. */
async function serveAttackerPage(html: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

test("a page on another port cannot run the console chat or sign the person out", async ({ page, baseURL }) => {
  const { orgKey } = await signedInDemo(page);
  const appId = await seedApp(page.request, orgKey.secret);
  const before = await me(page);
  expect(before).not.toBeNull();

  const chatUrl = `${baseURL}/api/console/apps/${appId}/conversation`;
  const signOutUrl = `${baseURL}/api/trpc/auth.signOut`;
  // Simple requests need no preflight: text/plain fetches with the cookie, and a form post.
  const attacker = await serveAttackerPage(`<!doctype html><html><body>
    <form id="signout" method="POST" action="${signOutUrl}" enctype="text/plain"><input name='{"x":"' value='"}'></form>
    <script>
      const body = JSON.stringify({ message: "How long do refunds take?" });
      const simple = { method: "POST", mode: "no-cors", credentials: "include", headers: { "content-type": "text/plain" } };
      window.done = Promise.all([
        fetch(${JSON.stringify(chatUrl)}, { ...simple, body }).catch(() => null),
        fetch(${JSON.stringify(signOutUrl)}, { ...simple, body: "{}" }).catch(() => null),
      ]);
    </script>
  </body></html>`);
  try {
    const answers = new Map<string, number>();
    page.on("response", (response) => {
      if (response.url().startsWith(baseURL!))
        answers.set(`${response.request().method()} ${new URL(response.url()).pathname}`, response.status());
    });

    await page.goto(attacker.url);
    await page.evaluate(() => (window as unknown as { done: Promise<unknown> }).done);
    // Refused as cross-origin (403), or, at /api/trpc, as a body that is not JSON (415): tRPC
    // checks the content type before the console's origin check runs.
    expect(answers.get(`POST /api/console/apps/${appId}/conversation`)).toBe(403);
    expect([403, 415]).toContain(answers.get("POST /api/trpc/auth.signOut"));

    const formAnswer = page.waitForResponse((response) => response.url() === signOutUrl);
    // The form navigates the tab; it must have loaded the refusal before the tab goes elsewhere.
    const formLoaded = page.waitForURL(signOutUrl);
    await page.evaluate(() => (document.getElementById("signout") as HTMLFormElement).submit());
    expect([403, 415]).toContain((await formAnswer).status());
    await formLoaded;
  } finally {
    await attacker.close();
  }

  // Still signed in, no credit spent, no conversation started.
  const after = await me(page);
  expect(after).not.toBeNull();
  expect(after!.credits).toBe(before!.credits);
  const conversations = await page.request.get(
    `/api/trpc/conversations.list?input=${encodeURIComponent(JSON.stringify({ appId }))}`,
  );
  expect((await conversations.json()).result.data.conversations).toEqual([]);
  await page.goto("/");
  await expect(page).not.toHaveURL(/sign-in/);
});

test("every route answers with a request id and the security headers", async ({ request }) => {
  for (const path of [
    "/sign-in",
    "/",
    "/docs",
    "/no-such-page",
    "/api/health",
    "/api/trpc/auth.me",
    "/api/mcp",
    "/api/no-such-route",
    "/api/v1/openapi.json",
    "/api/v1/models",
  ]) {
    const response = await request.get(path, { maxRedirects: 0 });
    const headers = response.headers();
    expect(headers["x-request-id"], path).toMatch(/^[0-9a-f-]{36}$/);
    expect(headers["content-security-policy"], path).toContain("frame-ancestors 'none'");
    expect(headers["x-frame-options"], path).toBe("DENY");
    expect(headers["x-content-type-options"], path).toBe("nosniff");
    expect(headers["referrer-policy"], path).toBe("strict-origin-when-cross-origin");
  }
  // The contract's echo rule holds on every route, /api/v1 included.
  for (const path of ["/api/v1/openapi.json", "/api/v1/models", "/api/health", "/sign-in"]) {
    expect(
      (await request.get(path, { headers: { "X-Request-Id": "client-id.42" } })).headers()["x-request-id"],
      path,
    ).toBe("client-id.42");
    expect(
      (await request.get(path, { headers: { "X-Request-Id": "not valid!" } })).headers()["x-request-id"],
      path,
    ).toMatch(/^[0-9a-f-]{36}$/);
  }
});

test("the console's pages run under its Content-Security-Policy without a violation", async ({ page }) => {
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to (execute|load|apply|connect)/i.test(message.text()))
      violations.push(message.text());
  });
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) =>
      console.error(
        `Content Security Policy violation: ${event.violatedDirective} ${event.blockedURI} on ${location.pathname} at ${event.sourceFile}:${event.lineNumber}`,
      ),
    );
  });

  // The sign-in form itself, so the page's scripts are proven to run.
  const { login } = await seedDemo();
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(login.email);
  await page.getByLabel("Password").fill(login.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).not.toHaveURL(/sign-in/);

  for (const path of ["/knowledge", "/agents", "/chat", "/members", "/settings"]) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  }
  // The API reference (/docs) is checked under its policy in e2e/docs-a11y.spec.ts.
  expect(violations).toEqual([]);
});

test("a forged X-Forwarded-For does not escape sign-in throttling: the server counts the socket's address", async ({
  playwright,
  baseURL,
}) => {
  const demo = await seedDemo();
  const request = await playwright.request.newContext({ baseURL });
  const attempt = (forged: string) =>
    request.post("/api/trpc/auth.signIn", {
      headers: { "content-type": "application/json", "x-forwarded-for": forged },
      data: { email: demo.login.email, password: "not-the-password" },
    });
  // A new forged address each time: were it believed, every attempt would start a fresh count.
  for (let i = 0; i < 10; i++) expect((await attempt(`203.0.113.${i + 1}`)).status()).toBe(401);
  const refused = await attempt("203.0.113.200");
  expect(refused.status()).toBe(429);
  expect(Number(refused.headers()["retry-after"])).toBeGreaterThanOrEqual(1);
  await request.dispose();
});
