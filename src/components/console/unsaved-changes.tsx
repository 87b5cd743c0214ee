"use client";
// One warning before leaving a form with unsaved edits, for the whole console: a form calls
// useUnsavedChanges(dirty); while any form is dirty, a reload or closing the tab asks the
// browser's question, and a link click inside the console (the sidebar, a breadcrumb, a link in
// the page) opens the console's confirmation first. Cancelling keeps the page and its text.
import { useRouter } from "next/navigation";
import { useEffect, useId, useSyncExternalStore } from "react";
import { ConfirmDialog } from "./confirm-dialog";
import { usePageState } from "./use-page-state";

/** The dirty forms, each with whether it keeps its edits in this browser (the editors do). */
const dirtyForms = new Map<string, boolean>();
const listeners = new Set<() => void>();

function notify(): void {
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** "none", "kept" (every dirty form keeps its edits in this browser) or "lost". */
function dirtiness(): "none" | "kept" | "lost" {
  if (dirtyForms.size === 0) return "none";
  return [...dirtyForms.values()].every(Boolean) ? "kept" : "lost";
}

/** Marks this form as holding unsaved edits while `dirty` is true; `keptInBrowser` when it keeps them in localStorage meanwhile. */
export function useUnsavedChanges(dirty: boolean, options: { keptInBrowser?: boolean } = {}): void {
  const id = useId();
  const kept = options.keptInBrowser ?? false;
  useEffect(() => {
    if (!dirty) return;
    dirtyForms.set(id, kept);
    notify();
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener("beforeunload", warn);
    return () => {
      window.removeEventListener("beforeunload", warn);
      dirtyForms.delete(id);
      notify();
    };
  }, [dirty, id, kept]);
}

/** The in-console destination of a plain left click on a link, or null when the click does not navigate this tab within the console. */
function destinationOf(event: MouseEvent): string | null {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey)
    return null;
  const anchor = (event.target as Element | null)?.closest?.("a[href]");
  if (
    !(anchor instanceof HTMLAnchorElement) ||
    anchor.hasAttribute("download") ||
    (anchor.target && anchor.target !== "_self")
  )
    return null;
  const url = new URL(anchor.href, window.location.href);
  if (url.origin !== window.location.origin) return null;
  // Moving within the page (an anchor, a tab in the query string of the same path) loses nothing.
  if (url.pathname === window.location.pathname) return null;
  return `${url.pathname}${url.search}${url.hash}`;
}

/** Rendered once by the console layout: asks before a link click leaves a form with unsaved edits. */
export function UnsavedChangesGuard() {
  const router = useRouter();
  const dirty = useSyncExternalStore(subscribe, dirtiness, () => "none" as const);
  const [pending, setPending] = usePageState<string | null>(null);
  useEffect(() => {
    if (dirty === "none") return;
    // Capture, on the document: before Next.js's Link (React listens at its root) starts the navigation.
    const onClick = (event: MouseEvent) => {
      const destination = destinationOf(event);
      if (destination === null) return;
      event.preventDefault();
      event.stopPropagation();
      setPending(destination);
    };
    document.addEventListener("click", onClick, true);
    return () => document.removeEventListener("click", onClick, true);
  }, [dirty, setPending]);

  return (
    <ConfirmDialog
      open={pending !== null}
      title="Leave without saving?"
      confirmLabel="Leave and lose the edits"
      onConfirm={() => {
        const destination = pending;
        // The form is left for good: its edits no longer hold the page.
        dirtyForms.clear();
        notify();
        if (destination) router.push(destination);
      }}
      onClose={() => setPending(null)}
    >
      <p>
        {dirty === "kept"
          ? "This page has edits the server has not saved yet. They stay in this browser and come back when you open the page again, but nobody else sees them."
          : "This page has edits that are not saved yet. If you leave now, they are lost."}
      </p>
    </ConfirmDialog>
  );
}
