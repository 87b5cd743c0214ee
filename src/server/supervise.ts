// Keeps the server process running for `npm start`: when it dies without being asked to, the
// reason is logged and it is started again after a backoff that doubles per quick crash (a
// server that stayed up a while starts over at the shortest). Stopping forwards the signal and
// waits for the server's own graceful shutdown.
import type { ChildProcess } from "node:child_process";

export interface SupervisorOptions {
  start: () => ChildProcess;
  log: (fields: Record<string, unknown>, message: string) => void;
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** A run at least this long counts as healthy: the next crash restarts after minBackoffMs. */
  healthyAfterMs?: number;
}

export interface Supervisor {
  /** The current server process. */
  child(): ChildProcess;
  /** Forwards `signal` and resolves with the server's exit code; no restart after it. */
  stop(signal: NodeJS.Signals): Promise<number>;
  /** Resolves with the exit code once stopped. */
  done: Promise<number>;
}

export function supervise(options: SupervisorOptions): Supervisor {
  const minBackoffMs = options.minBackoffMs ?? 1000;
  const maxBackoffMs = options.maxBackoffMs ?? 30_000;
  const healthyAfterMs = options.healthyAfterMs ?? 60_000;
  let stopping = false;
  let backoffMs = minBackoffMs;
  let restartTimer: NodeJS.Timeout | undefined;
  let current: ChildProcess;
  let finish: (code: number) => void = () => {};
  const done = new Promise<number>((resolve) => (finish = resolve));

  function launch() {
    const startedAt = Date.now();
    current = options.start();
    current.once("exit", (code, signal) => {
      const exitCode = code ?? (signal ? 1 : 0);
      if (stopping) return finish(exitCode);
      const uptimeMs = Date.now() - startedAt;
      if (uptimeMs >= healthyAfterMs) backoffMs = minBackoffMs;
      options.log({ code, signal, uptimeMs, restartInMs: backoffMs }, "The server process exited unexpectedly; restarting it");
      restartTimer = setTimeout(launch, backoffMs);
      backoffMs = Math.min(backoffMs * 2, maxBackoffMs);
    });
  }
  launch();

  return {
    child: () => current,
    done,
    stop(signal) {
      stopping = true;
      if (restartTimer) clearTimeout(restartTimer);
      if (current.exitCode !== null || current.signalCode !== null)
        finish(0); // between restarts
      else current.kill(signal);
      return done;
    },
  };
}
