"use client";
import { hasChanges, lineDiff, wordDiff } from "@/lib/text-diff";
import "./text-diff.css";

/**
 * Two texts compared: by word (removed words struck through in red, added ones green, inline)
 * or by line (- and + prefixes). Both come from one diff, lib/text-diff.ts.
 */
export function TextDiff({
  before,
  after,
  by = "lines",
  label,
  sameText = "No changes.",
}: {
  before: string;
  after: string;
  by?: "words" | "lines";
  label?: string;
  sameText?: string;
}) {
  const parts = by === "words" ? wordDiff(before, after) : lineDiff(before, after);
  if (!hasChanges(parts)) return <p className="muted">{sameText}</p>;
  return (
    <pre className={`text-diff text-diff-${by}`} data-testid="diff" aria-label={label}>
      {by === "words"
        ? parts.map((part, i) =>
            part.op === "add" ? (
              <ins key={i}>{part.text}</ins>
            ) : part.op === "remove" ? (
              <del key={i}>{part.text}</del>
            ) : (
              <span key={i}>{part.text}</span>
            ),
          )
        : parts.map((part, i) => (
            <div key={i} className={`text-diff-${part.op}`}>
              {part.op === "add" ? "+ " : part.op === "remove" ? "- " : "  "}
              {part.text}
            </div>
          ))}
    </pre>
  );
}
