// When a refreshed URL source is due again, and what a good fetch records on its row.
import type { Validators } from "./fetch-url";

export const REFRESH_PERIODS = { daily: 24 * 60 * 60_000, weekly: 7 * 24 * 60 * 60_000 } as const;
export type RefreshPeriod = keyof typeof REFRESH_PERIODS;

/** When a source refreshed `refresh` is due next, from now; null when it is not refreshed. */
export function nextRefreshAt(refresh: string | null, now = Date.now()): Date | null {
  const period = refresh === "daily" || refresh === "weekly" ? REFRESH_PERIODS[refresh] : null;
  return period === null ? null : new Date(now + period);
}

/** The columns a good fetch sets: its validators, when it was checked and when it is due again. */
export function fetchedNow(refresh: string | null, validators: Validators) {
  return {
    etag: validators.etag,
    lastModified: validators.lastModified,
    checkedAt: new Date(),
    refreshDueAt: nextRefreshAt(refresh),
    refreshError: null,
  };
}
