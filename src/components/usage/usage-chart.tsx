"use client";
// Usage charts and the date-range picker whose range lives in the URL (?from=YYYY-MM-DD&to=YYYY-MM-DD,
// both days included). The bars (recharts, usage-bars.tsx) load after the page, into a placeholder of
// their height, so the console's first load carries no chart library and nothing jumps.
import dynamic from "next/dynamic";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useState, type ReactNode } from "react";
import { FormField, Select } from "@/components/console";
import type { UsageBarsProps } from "./usage-bars";

const DAY_MS = 86_400_000;
const PRESETS = [7, 30, 90, 365];

export interface UsageRange {
  /** ISO times for GET /usage: from the first day's start to the day after the last (UTC). */
  from: string;
  to: string;
  days: number;
}

const isDay = (value: string | null): value is string =>
  value !== null && /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value));
const dayOf = (time: number) => new Date(time).toISOString().slice(0, 10);

/** The range in the URL, else the last `defaultDays` days up to today (UTC). */
export function useUsageRange(defaultDays: number): UsageRange & {
  fromDay: string;
  lastDay: string;
  today: string;
  /** Days up to a month, weeks beyond: 90 bars of a day each are too thin to see on a phone. */
  interval: "day" | "week";
  set: (fromDay: string, lastDay: string) => void;
} {
  const search = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  // Today as of the first render: a page left open overnight keeps its range until reloaded.
  const [todayDay] = useState(() => dayOf(Date.now()));
  const today = Date.parse(todayDay);
  const askedFrom = search.get("from");
  const askedTo = search.get("to");
  const lastDay = isDay(askedTo) ? askedTo : dayOf(today);
  const fromDay =
    isDay(askedFrom) && askedFrom <= lastDay ? askedFrom : dayOf(Date.parse(lastDay) - (defaultDays - 1) * DAY_MS);
  const from = Date.parse(fromDay);
  const to = Math.min(Date.parse(lastDay) + DAY_MS, from + 366 * DAY_MS);
  const set = (nextFrom: string, nextLast: string) => {
    const params = new URLSearchParams(search.toString());
    params.set("from", nextFrom);
    params.set("to", nextLast);
    router.replace(`${pathname}?${params.toString()}`, { scroll: false });
  };
  const days = Math.round((to - from) / DAY_MS);
  return {
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    days,
    fromDay,
    lastDay,
    today: todayDay,
    interval: days > 31 ? "week" : "day",
    set,
  };
}

export function UsageRangePicker({ range }: { range: ReturnType<typeof useUsageRange> }) {
  const last = range.today;
  const preset = PRESETS.find((days) => days === range.days && range.lastDay === last);
  return (
    <div
      className="row"
      role="group"
      aria-label="Date range"
      style={{ alignItems: "flex-end", marginBottom: "0.75rem" }}
    >
      <FormField label="Range">
        <Select
          value={preset ?? ""}
          onChange={(event) => {
            const days = Number(event.target.value);
            if (days) range.set(dayOf(Date.parse(last) - (days - 1) * DAY_MS), last);
          }}
          placeholder={preset === undefined ? "Custom" : undefined}
          options={PRESETS.map((days) => ({ value: String(days), label: `Last ${days} days` }))}
        />
      </FormField>
      <FormField label="From">
        <input
          type="date"
          value={range.fromDay}
          max={range.lastDay}
          onChange={(event) => isDay(event.target.value) && range.set(event.target.value, range.lastDay)}
        />
      </FormField>
      <FormField label="To">
        <input
          type="date"
          value={range.lastDay}
          min={range.fromDay}
          onChange={(event) => isDay(event.target.value) && range.set(range.fromDay, event.target.value)}
        />
      </FormField>
    </div>
  );
}

/** Stands where the bars will be, at their height, while recharts loads. */
function ChartPlaceholder({ height }: { height: number }) {
  return <div className="usage-chart-placeholder" style={{ height }} aria-hidden />;
}

const DEFAULT_HEIGHT = 220;
const UsageBarChart = dynamic(() => import("./usage-bars"), {
  ssr: false,
  loading: () => <ChartPlaceholder height={DEFAULT_HEIGHT} />,
});

/**
 * Bars per bucket, one colour per series; a caption says what it shows for those who cannot see
 * it: the totals in English unless `caption` gives it in another language (the portal).
 */
export function UsageBars({
  label,
  points,
  series,
  height = DEFAULT_HEIGHT,
  locale,
  caption,
}: UsageBarsProps & { caption?: string }) {
  const totals = series.map(
    (s) =>
      `${s.label.toLowerCase()} ${points.reduce((sum, point) => sum + Number(point[s.key] ?? 0), 0).toLocaleString(locale)}`,
  );
  return (
    <figure style={{ margin: 0 }} data-testid="usage-chart">
      <figcaption className="muted" style={{ marginBottom: "0.5rem" }}>
        {caption ?? `${label}. Totals: ${totals.join(", ")}.`}
      </figcaption>
      <div style={{ minHeight: height }}>
        <UsageBarChart label={label} points={points} series={series} height={height} locale={locale} />
      </div>
    </figure>
  );
}

/** What to do when there is nothing to show yet. */
export function UsageEmpty({ children }: { children: ReactNode }) {
  return (
    <div className="empty-state" data-testid="usage-empty">
      <p style={{ margin: 0 }}>{children}</p>
    </div>
  );
}
