// What a helper opens for the test file that uses it (a loopback server, …) and closes when that file
// ends. A helper module is loaded once per worker in the "shared" project (vitest.config.ts), so an
// afterAll at its top would run at the end of the first file only: tests/setup.ts runs these instead.
const closers: (() => Promise<void> | void)[] = [];

/** Runs `close` once, when the current test file ends. */
export function onFileEnd(close: () => Promise<void> | void): void {
  closers.push(close);
}

/** Runs and forgets what the ending file registered (tests/setup.ts's afterAll). */
export async function endFile(): Promise<void> {
  for (const close of closers.splice(0)) await close();
}
