"use client";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
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

/**
 * The search parameters of a urlStatePage: `get` reads one; `show` puts this page's address with
 * just the parameters given in place of the current one (no history entry), `show({})` with none.
 */
export function useUrlState() {
  const router = useRouter();
  const pathname = usePathname();
  const search = useSearchParams();
  return {
    get: (name: string) => search.get(name),
    show: (params: Record<string, string>) => {
      const query = new URLSearchParams(params).toString();
      router.replace(query ? `${pathname}?${query}` : pathname);
    },
  };
}
