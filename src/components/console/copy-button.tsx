"use client";
import { Check, Copy } from "lucide-react";
import { useState } from "react";

/** Copies `text` (a secret, an id, a link) and says so for two seconds. */
export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  async function copy() {
    await navigator.clipboard.writeText(text);
    setCopied(true);
    setTimeout(() => setCopied(false), 2000);
  }
  return (
    <button type="button" onClick={() => void copy()}>
      {copied ? <Check size={16} aria-hidden className="icon" /> : <Copy size={16} aria-hidden className="icon" />}
      <span aria-live="polite">{copied ? "Copied" : label}</span>
    </button>
  );
}
