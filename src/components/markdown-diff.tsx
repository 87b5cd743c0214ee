"use client";
import { diffLines } from "diff";

/** A line diff of two markdown texts: removed lines red, added lines green. */
export function MarkdownDiff({ before, after }: { before: string; after: string }) {
  const parts = diffLines(before, after);
  return (
    <pre className="diff" data-testid="diff">
      {parts.map((part, i) => (
        <span key={i} className={part.added ? "diff-added" : part.removed ? "diff-removed" : "diff-same"}>
          {part.value
            .replace(/\n$/, "")
            .split("\n")
            .map((line) => `${part.added ? "+ " : part.removed ? "- " : "  "}${line}`)
            .join("\n") + "\n"}
        </span>
      ))}
    </pre>
  );
}
