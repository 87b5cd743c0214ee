// The Chromium the browser tests drive. Playwright cannot download its own browsers here, so we
// use the system's: CHROMIUM_PATH, else Debian's or Ubuntu's usual paths. When none is there and
// we may (root with apt-get), Debian's `chromium-headless-shell` package is installed; otherwise one
// line says how. The headless shell is Chromium's Blink without the browser's user interface: the
// browser suite spends about a third less CPU in it than in the full `chromium` (BENCHMARKS.md,
// "CI: the headless shell"), so it comes first and the full browser serves where it is missing.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

export const CANDIDATES = ["/usr/bin/chromium-headless-shell", "/usr/bin/chromium", "/usr/bin/chromium-browser"];

export const HOW_TO_INSTALL =
  "The browser tests need Chromium: run `sudo apt-get install chromium-headless-shell` (or `chromium`) on Debian/Ubuntu, or set CHROMIUM_PATH to a Chromium binary, then run `npm test` again.";

/** Installs the headless shell, or the full browser where the distribution has no such package. */
export function aptInstallChromium(run = execFileSync) {
  const options = { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } };
  run("apt-get", ["update", "-qq"], options);
  try {
    run("apt-get", ["install", "-y", "-qq", "chromium-headless-shell"], options);
  } catch {
    run("apt-get", ["install", "-y", "-qq", "chromium"], options);
  }
}

/**
 * The browser's path, installing it when missing and possible.
 * @returns {{ path: string } | { error: string }}
 */
export function ensureChromium({
  configured = process.env.CHROMIUM_PATH,
  candidates = CANDIDATES,
  exists = existsSync,
  canInstall = process.getuid?.() === 0 && existsSync("/usr/bin/apt-get"),
  install = aptInstallChromium,
  log = (line) => console.log(line),
} = {}) {
  if (configured)
    return exists(configured)
      ? { path: configured }
      : { error: `CHROMIUM_PATH is ${configured}, which does not exist. ${HOW_TO_INSTALL}` };
  const found = () => candidates.find((candidate) => exists(candidate));
  if (found()) return { path: found() };
  if (!canInstall) return { error: HOW_TO_INSTALL };
  log("Chromium is missing; installing Debian's chromium-headless-shell package for the browser tests…");
  try {
    install();
  } catch (error) {
    return {
      error: `Installing chromium with apt-get failed (${error instanceof Error ? error.message.split("\n")[0] : String(error)}). ${HOW_TO_INSTALL}`,
    };
  }
  return found() ? { path: found() } : { error: HOW_TO_INSTALL };
}
