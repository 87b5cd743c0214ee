import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import readline from "node:readline";
import { expect, type APIRequestContext, type ConsoleMessage, type Page, type Request } from "@playwright/test";
import { E2E_DATA_DIR } from "../playwright.config";

export interface Demo {
  organization: { id: string; name: string };
  orgKey: { id: string; secret: string };
  personalKey: { id: string; secret: string };
  login: { email: string; password: string };
}

let adminProcess: { ask(args: string[]): Promise<string> } | undefined;

/** The compiled admin CLI in its `--lines` mode: one process for this worker, started on first use. */
function adminLines(): { ask(args: string[]): Promise<string> } {
  if (adminProcess) return adminProcess;
  const child = spawn(process.execPath, ["dist/server/admin.mjs", "--lines"], {
    env: { ...process.env, DATA_DIR: E2E_DATA_DIR },
    stdio: ["pipe", "pipe", "inherit"],
  });
  // It ends when this worker does (its stdin closes); it does not keep the worker alive.
  child.unref();
  const waiting: { resolve: (line: string) => void; reject: (error: Error) => void }[] = [];
  readline.createInterface({ input: child.stdout }).on("line", (line) => waiting.shift()?.resolve(line));
  child.once("exit", (code) => {
    adminProcess = undefined;
    for (const { reject } of waiting.splice(0)) reject(new Error(`The admin CLI exited (${code}) mid-command`));
  });
  adminProcess = {
    ask: (args) =>
      new Promise((resolve, reject) => {
        // The CLI answers its lines in order.
        waiting.push({ resolve, reject });
        child.stdin.write(`${JSON.stringify(args)}\n`);
      }),
  };
  return adminProcess;
}

/**
 * Runs an admin CLI command against the e2e server's database and returns its JSON (throws with it
 * when it is an error): the compiled CLI, which `npm start` (the e2e server) has just built from
 * the sources (scripts/build-server.mjs), kept running for the worker's commands.
 */
export async function admin<T = any>(...args: string[]): Promise<T> {
  const line = await adminLines().ask(args);
  const answer = JSON.parse(line) as T | { error: unknown };
  if (answer && typeof answer === "object" && "error" in answer) throw new Error(`admin ${args.join(" ")}: ${line}`);
  return answer as T;
}

/** Adds a person with a password to the organization in a role, through the admin CLI. */
export function addMember(
  organizationId: string,
  { email, password }: { email: string; password: string },
  role: "viewer" | "member" | "admin" | "owner",
): Promise<{ member: { id: string } }> {
  return admin("member", "add", "--org", organizationId, "--email", email, "--role", role, "--password", password);
}

/** Seeds a fresh organization through the admin CLI. */
export function seedDemo(): Promise<Demo> {
  return admin<Demo>("seed", "demo");
}

/** Signs in through the API (only the sign-in test uses the form). */
export async function signIn(page: Page, login: Demo["login"]): Promise<void> {
  const response = await page.request.post("/api/trpc/auth.signIn", { data: login });
  if (!response.ok()) throw new Error(`Sign-in failed: ${response.status()} ${await response.text()}`);
}

/** A fresh organization (as `seedDemo`) whose owner is signed in on `page`. */
export async function signedInDemo(page: Page): Promise<Demo> {
  const demo = await seedDemo();
  await signIn(page, demo.login);
  return demo;
}

/**
 * For what a click shows on a route's first visit: a fresh production server loads that route's
 * modules only then, and on CI's two busy cores such a navigation has taken over 10 s.
 */
export const FIRST_VISIT = { timeout: 30_000 };

/** The two sizes the console is checked at: a desk and a phone. */
export const VIEWPORTS = [
  { name: "desktop", width: 1440, height: 900 },
  { name: "phone", width: 390, height: 844 },
];

/** A node on the flow canvas by its index in the flow's node list. */
export const flowCard = (page: Page, index: number) => page.locator(`.react-flow__node[data-id="${index}"]`);

/**
 * Waits until the flow canvas stands still: after a node is added it brings every node into view
 * (src/components/builder/flow-canvas.tsx), and a card that moves between press and release is no click.
 */
export async function canvasAtRest(page: Page): Promise<void> {
  const viewport = page.locator(".react-flow__viewport");
  const transform = () => viewport.evaluate((element) => (element as HTMLElement).style.transform);
  await expect
    .poll(async () => {
      const before = await transform();
      await page.waitForTimeout(400);
      return (await transform()) === before;
    })
    .toBe(true);
}

/** A flow draft's nodes as the API holds them. */
export async function draftNodes(page: Page, key: string, flowId: string) {
  return (await api(page.request, key, "GET", `/flows/${flowId}/draft`)).flow.nodes as {
    id: string;
    type: string;
    data: Record<string, unknown>;
  }[];
}

/** A JSON call to the REST API with a key; throws with the body when it fails. */
export async function api<T = any>(
  request: APIRequestContext,
  key: string,
  method: "GET" | "POST" | "PATCH" | "DELETE",
  path: string,
  data?: unknown,
): Promise<T> {
  const response = await request.fetch(`/api/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}` },
    ...(data === undefined ? {} : { data }),
  });
  if (!response.ok()) throw new Error(`${method} ${path}: ${response.status()} ${await response.text()}`);
  return (await response.json()) as T;
}

/**
 * The newest sign-in code sent to `email`, read from the organization's outbox (as an operator
 * would). Codes are mailed just after the answer, so it waits for one.
 */
export async function latestSignInCode(organizationId: string, email: string): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const { messages } = await admin<{ messages: { to: string; text: string }[] }>(
      "mail",
      "list",
      "--org",
      organizationId,
    );
    const mine = messages.filter((m) => m.to.toLowerCase() === email.toLowerCase());
    const code = mine[0]?.text.match(/\b(\d{6})\b/)?.[1];
    if (code) return code;
    if (attempt >= 20) throw new Error(`No sign-in code for ${email} in the outbox: ${JSON.stringify(messages)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

interface AxeRule {
  id: string;
  impact?: string;
  enabled: boolean;
  tags: string[];
}

/**
 * The rules axe runs by default that can find something serious or critical: in axe-core 4 every
 * rule has one impact and each of its violations takes it (_finalizeRuleResult), so the others'
 * findings are never asserted and running them only costs time (about a tenth of a page's check). Read
 * from the axe-core that @axe-core/playwright injects; its default is the enabled rules without an
 * excluded tag (axe's tagExclude: "experimental", "deprecated").
 */
const SERIOUS_AXE_RULES: string[] = (() => {
  const fromBuilder = createRequire(createRequire(import.meta.url).resolve("@axe-core/playwright"));
  const { _audit: audit } = fromBuilder("axe-core") as { _audit: { rules: AxeRule[]; tagExclude: string[] } };
  return audit.rules
    .filter((rule) => rule.enabled !== false && !rule.tags.some((tag) => audit.tagExclude.includes(tag)))
    .filter((rule) => rule.impact === "serious" || rule.impact === "critical")
    .map((rule) => rule.id);
})();

/**
 * Axe's serious and critical violations on the page, as "rule: target" lines (empty when clean);
 * `exclude`: a selector of parts left out, where a page repeats one structure thousands of times.
 */
export async function seriousA11yViolations(page: Page, exclude?: string): Promise<string[]> {
  const { default: AxeBuilder } = await import("@axe-core/playwright");
  // Only violations are read: axe then keeps one node per passing rule instead of every node.
  // (options() replaces what withRules() set, so both go in one options object.)
  // Legacy mode: axe.run in the page (its same-origin frames included) instead of a partial run per
  // frame finished in a new blank page, which took twice as long; our pages have no cross-origin frames.
  const builder = new AxeBuilder({ page })
    .options({ resultTypes: ["violations"], runOnly: { type: "rule", values: SERIOUS_AXE_RULES } })
    .setLegacyMode();
  // Without motion a toast is whole or gone: one fading out mid-check measured its own transparency.
  await page.emulateMedia({ reducedMotion: "reduce" });
  const results = await (exclude ? builder.exclude(exclude) : builder).analyze();
  await page.emulateMedia({ reducedMotion: null });
  return results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .flatMap((violation) =>
      violation.nodes.map((node) => `${violation.id}: ${node.target.join(" ")} (${violation.help})`),
    );
}

/**
 * A full-page screenshot into .screens/ (not committed), named by page and viewport width, for a
 * person to look at: CI, where nobody does, skips them (SCREENSHOTS=1 takes them there too).
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.CI === "true" && process.env.SCREENSHOTS !== "1") return;
  const width = page.viewportSize()?.width ?? 0;
  await page.screenshot({ path: `.screens/${name}-${width}.png`, fullPage: true });
}

/** Signs an end user in through the portal door (the sign-in form has its own test in e2e/portal.spec.ts). */
export async function portalSignIn(
  request: APIRequestContext,
  slug: string,
  organizationId: string,
  email: string,
): Promise<void> {
  const asked = await request.post("/api/portal/trpc/auth.requestCode", { data: { portal: slug, email } });
  expect(asked.status(), await asked.text()).toBe(200);
  const code = await latestSignInCode(organizationId, email);
  const verified = await request.post("/api/portal/trpc/auth.verifyCode", { data: { portal: slug, email, code } });
  expect(verified.status(), await verified.text()).toBe(200);
}

/** What a portal spec's organization holds: its one app, the portal and the end user. */
export interface PortalUser {
  demo: Demo;
  key: string;
  appId: string;
  portalId: string;
  endUserId: string;
}

/**
 * A fresh organization with an agent, published, in a published app; a plan; a portal; and an end
 * user (Alice Martin) on the plan, granted the app in that portal, signed in to it through the
 * portal door unless `signedIn` is false. `prepare` runs first (a webhook, a knowledgebase, a
 * model provider) and what it returns is added to the agent. The console session, if `prepare`
 * opened one, is closed at the end: the portal has its own.
 */
export async function provisionPortalUser(
  page: Page,
  {
    slug,
    email,
    agent,
    app,
    plan = { name: "Starter", credits: 20 },
    portal = {},
    signedIn = true,
    prepare,
  }: {
    slug: string;
    email: string;
    /** The agent's create body (`POST /agents`). */
    agent: Record<string, unknown>;
    /** The app's create body without its members (the agent is its one member). */
    app: Record<string, unknown>;
    plan?: { name: string; credits: number };
    /** More of the portal's create body than its slug (`name` is "Help Center" unless given). */
    portal?: Record<string, unknown>;
    signedIn?: boolean;
    prepare?: (demo: Demo) => Promise<Record<string, unknown> | void>;
  },
): Promise<PortalUser> {
  const demo = await seedDemo();
  const key = demo.orgKey.secret;
  const agentExtra = (await prepare?.(demo)) ?? {};
  const created = await api(page.request, key, "POST", "/agents", { ...agent, ...agentExtra });
  await api(page.request, key, "POST", `/agents/${created.agent.id}/publish`, {});
  const { app: made } = await api(page.request, key, "POST", "/apps", {
    ...app,
    members: [{ id: created.agent.id, kind: "agent" }],
  });
  await api(page.request, key, "POST", `/apps/${made.id}/publish`, {});
  const { tierPlan } = await admin<{ tierPlan: { id: string } }>(
    "plan",
    "create",
    "--org",
    demo.organization.id,
    "--name",
    plan.name,
    "--credits",
    String(plan.credits),
  );
  const { portal: opened } = await api(page.request, key, "POST", "/portals", {
    name: "Help Center",
    slug,
    ...portal,
  });
  const { endUser } = await api(page.request, key, "POST", "/end-users", {
    email,
    fullName: "Alice Martin",
    tierPlanIds: [tierPlan.id],
    grants: [{ targetKind: "app", targetId: made.id, deploymentId: opened.id }],
  });
  await page.context().clearCookies();
  if (signedIn) await portalSignIn(page.request, slug, demo.organization.id, email);
  return { demo, key, appId: made.id, portalId: opened.id, endUserId: endUser.id };
}

/**
 * Creates an agent, flow or app with its list page's form and waits for its editor. Creating
 * from that form has failed now and then on CI (the list's heading stayed), unreproduced here:
 * a failure says what the page showed, for the next look.
 */
export async function createFromList(page: Page, kind: "agent" | "flow" | "app", name: string): Promise<void> {
  const form = page.getByRole("form", { name: `Create ${kind}` });
  await form.getByLabel("Name").fill(name);
  // What the page asked of the server from the click on, and what the browser logged.
  const clicked = Date.now();
  const traffic: string[] = [];
  const since = () => `${Date.now() - clicked} ms`;
  const ours = (url: string) => !new URL(url).pathname.startsWith("/_next/static");
  const onRequest = (request: Request) => {
    if (ours(request.url()))
      traffic.push(
        `${since()} ${request.method()} ${new URL(request.url()).pathname}${request.headers()["rsc"] ? " (RSC)" : ""}`,
      );
  };
  const onFinished = async (request: Request) => {
    if (ours(request.url()))
      traffic.push(`${since()} done ${new URL(request.url()).pathname}: ${(await request.response())?.status()}`);
  };
  const onFailed = (request: Request) => {
    if (ours(request.url()))
      traffic.push(`${since()} failed ${new URL(request.url()).pathname}: ${request.failure()?.errorText}`);
  };
  const onConsole = (message: ConsoleMessage) =>
    traffic.push(`${since()} console.${message.type()}: ${message.text()}`);
  page.on("request", onRequest);
  page.on("requestfinished", onFinished);
  page.on("requestfailed", onFailed);
  page.on("console", onConsole);
  await form.getByRole("button", { name: `Create ${kind}` }).click();
  try {
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(name);
  } catch (error) {
    const typed = await form
      .getByLabel("Name")
      .inputValue({ timeout: 1_000 })
      .catch(() => "(no such field)");
    const alerts = await page.getByRole("alert").allTextContents();
    const hints = await form.locator(".field-error, .hint").allTextContents();
    const button = form.getByRole("button", { name: `Create ${kind}` });
    const state = {
      buttonDisabled: await button.isDisabled({ timeout: 1_000 }).catch(() => null),
      formValid: await form.evaluate((element) => (element as HTMLFormElement).checkValidity()).catch(() => null),
    };
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}\nAfter "Create ${kind}" the page is ${page.url()}; its Name field holds ${JSON.stringify(typed)}; alerts ${JSON.stringify(alerts)}; field notes ${JSON.stringify(hints)}; ${JSON.stringify(state)}\nSince the click:\n${traffic.join("\n")}`,
      { cause: error },
    );
  } finally {
    page.off("request", onRequest);
    page.off("requestfinished", onFinished);
    page.off("requestfailed", onFailed);
    page.off("console", onConsole);
  }
}
