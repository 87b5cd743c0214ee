import { dayWords, fullWhen, whenWords } from "@/lib/when";

/**
 * A moment in a list or a line: short ("Today, 12:25 AM"), the whole of it on hover,
 * machine-readable; `never` stands for a moment that has not happened (null); `day` drops the time
 * where it does not matter ("Today", "Dec 8").
 */
export function When({ at, never = "—", day = false }: { at: string | Date | null; never?: string; day?: boolean }) {
  if (at === null) return <>{never}</>;
  const iso = typeof at === "string" ? at : at.toISOString();
  return (
    <time dateTime={iso} title={fullWhen(iso)}>
      {day ? dayWords(iso) : whenWords(iso)}
    </time>
  );
}
