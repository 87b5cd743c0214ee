// Issue 13 point 2: `npm test` on a fresh machine gets its browser itself (root with apt-get)
// or stops with one line saying how; it never fails deep inside Playwright.
import { describe, expect, it } from "vitest";
// @ts-expect-error -- a plain .mjs script without type declarations
import { aptInstallChromium, ensureChromium, HOW_TO_INSTALL } from "../../scripts/chromium.mjs";

function machine(present: string[]) {
  const files = new Set(present);
  return { exists: (file: string) => files.has(file), add: (file: string) => files.add(file) };
}

describe("ensureChromium", () => {
  it("uses an installed Chromium without installing anything", () => {
    const host = machine(["/usr/bin/chromium"]);
    let installs = 0;
    expect(
      ensureChromium({ configured: undefined, exists: host.exists, canInstall: true, install: () => installs++ }),
    ).toEqual({ path: "/usr/bin/chromium" });
    expect(installs).toBe(0);
  });

  it("prefers the headless shell to the full browser when both are there", () => {
    const host = machine(["/usr/bin/chromium", "/usr/bin/chromium-headless-shell"]);
    expect(ensureChromium({ configured: undefined, exists: host.exists, canInstall: true })).toEqual({
      path: "/usr/bin/chromium-headless-shell",
    });
  });

  it("installs Debian's headless shell when missing, as root with apt-get", () => {
    const host = machine([]);
    const said: string[] = [];
    const result = ensureChromium({
      configured: undefined,
      exists: host.exists,
      canInstall: true,
      install: () => host.add("/usr/bin/chromium-headless-shell"),
      log: (line: string) => said.push(line),
    });
    expect(result).toEqual({ path: "/usr/bin/chromium-headless-shell" });
    expect(said).toEqual([expect.stringContaining("installing Debian's chromium-headless-shell")]);
  });

  it("installs the full browser where the distribution has no headless shell package", () => {
    const commands: string[] = [];
    aptInstallChromium((command: string, args: string[]) => {
      const line = [command, ...args].join(" ");
      commands.push(line);
      if (line.endsWith("chromium-headless-shell")) throw new Error("E: Unable to locate package");
    });
    expect(commands).toEqual([
      "apt-get update -qq",
      "apt-get install -y -qq chromium-headless-shell",
      "apt-get install -y -qq chromium",
    ]);
  });

  it("says in one line how to get it when it cannot install (not root, or no apt-get)", () => {
    const result = ensureChromium({
      configured: undefined,
      exists: machine([]).exists,
      canInstall: false,
      install: () => {
        throw new Error("must not install");
      },
    });
    expect(result).toEqual({ error: HOW_TO_INSTALL });
    expect(HOW_TO_INSTALL).not.toContain("\n");
  });

  it("reports a failed installation in one line", () => {
    const result = ensureChromium({
      configured: undefined,
      exists: machine([]).exists,
      canInstall: true,
      install: () => {
        throw new Error("E: Unable to locate package chromium\nmore");
      },
      log: () => {},
    });
    expect(result.error).toMatch(/^Installing chromium with apt-get failed \(E: Unable to locate package chromium\)\./);
  });

  it("honours CHROMIUM_PATH, and says so when it points nowhere", () => {
    expect(
      ensureChromium({ configured: "/opt/chrome/chrome", exists: machine(["/opt/chrome/chrome"]).exists }),
    ).toEqual({ path: "/opt/chrome/chrome" });
    expect(ensureChromium({ configured: "/nowhere", exists: machine([]).exists }).error).toContain(
      "CHROMIUM_PATH is /nowhere",
    );
  });
});
