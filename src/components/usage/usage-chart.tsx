"use client";
// Usage charts (recharts, whose v3 accessibility layer lets a keyboard walk the bars and a screen
// reader hear each one; docs/console.md says why this library) and the date-range picker whose
// range lives in the URL (?from=YYYY-MM-DD&to=YYYY-MM-DD, both days included).
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { useState, type ReactNode } from "react";

const DAY_MS = 86_400_000;
const PRESETS = [7, 30, 90, 365];

export interface UsageRange {
  /** ISO times for GET /usage: from the first day's start to the day after the last (UTC). */
  from: string;
  to: string;
  days: number;
}

const isDay = (value: string | null): value is string => value !== null && /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value));
const dayOf = (time: number) => new Date(time).toISOString().slice(0, 10);

/** The range in the URL, else the last `defaultDays` days up to today (UTC). */
export function useUsageRange(defaultDays: number): UsageRange & { fromDay: string; lastDay: string; today: string; set: (fromDay: string, lastDay: string) => void } {
  const search = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  // Today as of the first render: a page left open overnight keeps its range until reloaded.
  const [todayDay] = useState(() => dayOf(Date.now()));
  const today = Date.parse(todayDay);
  const askedFrom = search.get("from");
  const askedTo = search.get("to");
  const lastDay = isDay(askedTo) ? askedTo : dayOf(today);
  const fromDay = isDay(askedFrom) && askedFrom <= lastDay ? askedFrom : dayOf(Date.parse(lastDay) - (defaultDays - 1) * DAY_MS);
  const from = Date.parse(fromDay);
  const to = Math.min(Date.parse(lastDay) + DAY_MS, from + 366 * DAY_MS);
  const set = (nextFrom: string, nextLast: string) => {
    const params = new URLSearchParams(search.toString());
    params.set("from", nextFrom);
    params.set("to", nextLast);
    router.replace(`${pathname}?${params.toString()}`, { scroll: false });
  };
  return { from: new Date(from).toISOString(), to: new Date(to).toISOString(), days: Math.round((to - from) / DAY_MS), fromDay, lastDay, today: todayDay, set };
}

export function UsageRangePicker({ range }: { range: ReturnType<typeof useUsageRange> }) {
  const last = range.today;
  const preset = PRESETS.find((days) => days === range.days && range.lastDay === last);
  return (
    <div className="row" role="group" aria-label="Date range" style={{ alignItems: "flex-end", marginBottom: "0.75rem" }}>
      <label>
        Range
        <select
          value={preset ?? ""}
          onChange={(event) => {
            const days = Number(event.target.value);
            if (days) range.set(dayOf(Date.parse(last) - (days - 1) * DAY_MS), last);
          }}
        >
          {preset === undefined && <option value="">Custom</option>}
          {PRESETS.map((days) => (
            <option key={days} value={days}>
              Last {days} days
            </option>
          ))}
        </select>
      </label>
      <label>
        From
        <input type="date" value={range.fromDay} max={range.lastDay} onChange={(event) => isDay(event.target.value) && range.set(event.target.value, range.lastDay)} />
      </label>
      <label>
        To
        <input type="date" value={range.lastDay} min={range.fromDay} onChange={(event) => isDay(event.target.value) && range.set(range.fromDay, event.target.value)} />
      </label>
    </div>
  );
}

export interface ChartSeries {
  key: string;
  label: string;
  color: string;
}

/** The tooltip in the theme's colours (recharts draws it white by default). */
const CHART_TOOLTIP = { background: "var(--panel)", border: "1px solid var(--border)", color: "var(--text)" };

const shortDay = (start: string) => new Date(start).toLocaleDateString(undefined, { month: "short", day: "numeric", timeZone: "UTC" });

/** Bars per bucket, one colour per series; a caption says what it shows for those who cannot see it. */
export function UsageBars({
  label,
  points,
  series,
  height = 220,
}: {
  label: string;
  points: ({ start: string } & Record<string, number | string>)[];
  series: ChartSeries[];
  height?: number;
}) {
  const totals = series.map((s) => `${points.reduce((sum, point) => sum + Number(point[s.key] ?? 0), 0).toLocaleString()} ${s.label.toLowerCase()}`);
  return (
    <figure style={{ margin: 0 }} data-testid="usage-chart">
      <figcaption className="muted" style={{ marginBottom: "0.5rem" }}>
        {label}: {totals.join(", ")}.
      </figcaption>
      <ResponsiveContainer width="100%" height={height}>
        <BarChart data={points} title={label} margin={{ top: 4, right: 8, bottom: 4, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="var(--chart-grid)" />
          <XAxis dataKey="start" tickFormatter={shortDay} minTickGap={16} stroke="var(--border-strong)" tick={{ fill: "var(--muted)" }} />
          <YAxis allowDecimals={false} width={40} stroke="var(--border-strong)" tick={{ fill: "var(--muted)" }} />
          <Tooltip labelFormatter={(start) => shortDay(String(start))} contentStyle={CHART_TOOLTIP} cursor={{ fill: "var(--surface-sunken)" }} />
          <Legend />
          {series.map((s) => (
            <Bar key={s.key} dataKey={s.key} name={s.label} fill={s.color} />
          ))}
        </BarChart>
      </ResponsiveContainer>
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
