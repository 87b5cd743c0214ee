"use client";
// A bar across the top of the console from the click on a link until the next page is there, so
// a slow connection shows something at once; the console's loading.tsx shows a skeleton below it.
// App Router has no navigation events: a click on a same-origin link to another path starts the
// bar, and the new pathname (or a 10 s limit) ends it.
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useRef, useTransition } from "react";
import { usePageState } from "./use-page-state";

const GIVE_UP_MS = 10_000;
/** How long a page opened from code may take before it is loaded in full (useOpenPage). */
const STALLED_MS = 4_000;

function startsNavigation(event: MouseEvent): boolean {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey)
    return false;
  const anchor = (event.target as Element | null)?.closest?.("a");
  if (!anchor || anchor.target === "_blank" || anchor.hasAttribute("download")) return false;
  const url = new URL(anchor.href, window.location.href);
  return url.origin === window.location.origin && url.pathname !== window.location.pathname;
}

export function NavigationProgress() {
  // Busy from the click that leaves this page until the next page's path arrives.
  const [busy, setBusy] = usePageState(false);

  useEffect(() => {
    const click = (event: MouseEvent) => {
      if (startsNavigation(event)) setBusy(true);
    };
    const start = () => setBusy(true);
    // Capture phase: the link's own handler (Next's router) runs after this has seen the click.
    document.addEventListener("click", click, true);
    window.addEventListener("atrium:navigate", start);
    return () => {
      document.removeEventListener("click", click, true);
      window.removeEventListener("atrium:navigate", start);
    };
  }, [setBusy]);

  useEffect(() => {
    if (!busy) return;
    const timer = setTimeout(() => setBusy(false), GIVE_UP_MS);
    return () => clearTimeout(timer);
  }, [busy, setBusy]);

  return (
    <div
      className={busy ? "nav-progress busy" : "nav-progress"}
      role="progressbar"
      aria-label="Loading the page"
      aria-hidden={!busy}
    />
  );
}

/** Shows the bar for a navigation started in code (router.push). */
export function announceNavigation(): void {
  window.dispatchEvent(new Event("atrium:navigate"));
}

/**
 * Opens another console page from code (the editor of what a form just created): the bar shows at
 * once, and `opening` stays true until that page is there, so the form's button stays busy
 * instead of looking as if nothing happened (and inviting a second click, a second item).
 */
export function useOpenPage(): { opening: boolean; open: (href: string) => void } {
  const router = useRouter();
  const [opening, startOpening] = useTransition();
  const stalled = useRef<number | undefined>(undefined);
  // The page that called open() goes away when the next one is there, and its timer with it.
  useEffect(() => () => window.clearTimeout(stalled.current), []);
  const open = useCallback(
    (href: string) => {
      announceNavigation();
      startOpening(() => router.push(href));
      // The router's navigation has been seen to stall in the browser tests: its request for the
      // page aborted, the URL changed and the old page kept on screen for ten seconds. Still here
      // after STALLED_MS, the page is loaded in full instead, so that what was created opens.
      window.clearTimeout(stalled.current);
      stalled.current = window.setTimeout(() => window.location.assign(href), STALLED_MS);
    },
    [router],
  );
  return { opening, open };
}
