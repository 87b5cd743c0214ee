"use client";
// The bars themselves (recharts, whose v3 accessibility layer lets a keyboard walk the bars and a
// screen reader hear each one; docs/usage.md says why this library). Only usage-chart.tsx loads
// this module, lazily, so recharts stays out of a page's first load.
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

export interface ChartSeries {
  key: string;
  label: string;
  /** A CSS colour, a variable where it can be (the console's themes change them). */
  color: string;
}

export interface UsageBarsProps {
  label: string;
  points: ({ start: string } & Record<string, number | string>)[];
  series: ChartSeries[];
  height?: number;
  /** The Intl locale of the axis' dates; the browser's own when absent (the console). */
  locale?: string;
}

/** The tooltip in the theme's colours (recharts draws it white by default). */
const CHART_TOOLTIP = { background: "var(--panel)", border: "1px solid var(--border)", color: "var(--text)" };

const shortDay = (start: string, locale: string | undefined) =>
  new Date(start).toLocaleDateString(locale, { month: "short", day: "numeric", timeZone: "UTC" });

export default function UsageBarChart({ label, points, series, height, locale }: UsageBarsProps & { height: number }) {
  const day = (start: string) => shortDay(start, locale);
  return (
    <ResponsiveContainer width="100%" height={height}>
      <BarChart data={points} title={label} margin={{ top: 4, right: 8, bottom: 4, left: 0 }}>
        <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="var(--chart-grid)" />
        <XAxis
          dataKey="start"
          tickFormatter={day}
          minTickGap={16}
          stroke="var(--border-strong)"
          tick={{ fill: "var(--muted)" }}
        />
        <YAxis allowDecimals={false} width={40} stroke="var(--border-strong)" tick={{ fill: "var(--muted)" }} />
        <Tooltip
          labelFormatter={(start) => day(String(start))}
          contentStyle={CHART_TOOLTIP}
          cursor={{ fill: "var(--surface-sunken)" }}
        />
        <Legend />
        {series.map((s) => (
          // No growing animation: the bars are there at once, for everyone (and every screenshot).
          <Bar key={s.key} dataKey={s.key} name={s.label} fill={s.color} isAnimationActive={false} />
        ))}
      </BarChart>
    </ResponsiveContainer>
  );
}
