"use client";
import { Check, Copy } from "lucide-react";
import { useState, type ReactNode } from "react";
import { Button } from "./button";

/** Copies `text` (a secret, an id, a link) and says so for two seconds. */
export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  async function copy() {
    await navigator.clipboard.writeText(text);
    setCopied(true);
    setTimeout(() => setCopied(false), 2000);
  }
  return (
    <Button onClick={() => void copy()}>
      {copied ? <Check size={16} aria-hidden className="icon" /> : <Copy size={16} aria-hidden className="icon" />}
      <span aria-live="polite">{copied ? "Copied" : label}</span>
    </Button>
  );
}

/** A value to paste elsewhere (a URL, a secret) in a row with its copy button; `label` goes before it. */
export function CopyableValue({
  value,
  testId,
  label,
  children,
}: {
  value: string;
  testId?: string;
  label?: string;
  children?: ReactNode;
}) {
  return (
    <div className="row">
      {label && <span className="muted">{label}</span>}
      <code className="secret" data-testid={testId}>
        {value}
      </code>
      <CopyButton text={value} />
      {children}
    </div>
  );
}

/** A secret the server answers once (a key, a token, a signing secret): what it is, the value, and "Done" to hide it. */
export function SecretShownOnce({
  secret,
  testId,
  onDone,
  children,
}: {
  secret: string;
  testId: string;
  onDone: () => void;
  children: ReactNode;
}) {
  return (
    <div className="notice" role="status">
      <p>{children}</p>
      <CopyableValue value={secret} testId={testId}>
        <Button onClick={onDone}>Done</Button>
      </CopyableValue>
    </div>
  );
}
