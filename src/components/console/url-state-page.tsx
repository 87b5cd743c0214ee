"use client";
import { Suspense, type ReactNode } from "react";

/**
 * A page whose state lives in the URL (useSearchParams): Next.js renders it inside Suspense until
 * the search parameters are known, and the console says "Loading…" meanwhile.
 * `export default urlStatePage(AuditLog);`
 */
export function urlStatePage(Page: () => ReactNode) {
  function UrlStatePage() {
    return (
      <Suspense fallback={<p className="muted">Loading…</p>}>
        <Page />
      </Suspense>
    );
  }
  return UrlStatePage;
}
