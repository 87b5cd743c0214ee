import { execFileSync } from "node:child_process";
import type { Page } from "@playwright/test";
import { E2E_DATA_DIR } from "../playwright.config";

export interface Demo {
  organization: { id: string; name: string };
  orgKey: { id: string; secret: string };
  personalKey: { id: string; secret: string };
  login: { email: string; password: string };
}

/** Runs an admin CLI command against the e2e server's database and returns its JSON. */
export function admin<T = any>(...args: string[]): T {
  const out = execFileSync("node_modules/.bin/tsx", ["src/cli/admin.ts", ...args], {
    env: { ...process.env, DATA_DIR: E2E_DATA_DIR },
    encoding: "utf8",
  });
  return JSON.parse(out) as T;
}

/** Seeds a fresh organization through the admin CLI. */
export function seedDemo(): Demo {
  return admin<Demo>("seed", "demo");
}

/** Signs in through the API (only the sign-in test uses the form). */
export async function signIn(page: Page, login: Demo["login"]): Promise<void> {
  const response = await page.request.post("/api/trpc/auth.signIn", { data: login });
  if (!response.ok()) throw new Error(`Sign-in failed: ${response.status()} ${await response.text()}`);
}
