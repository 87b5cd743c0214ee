"use client";
// A portal's full link (this console's origin + /p/<slug>) with a copy button.
import { useBrowserOrigin } from "@/lib/browser";
import { CopyButton } from "@/components/console";

export function portalPath(slug: string): string {
  return `/p/${slug}`;
}

export function PortalLink({ slug }: { slug: string }) {
  const origin = useBrowserOrigin();
  const url = `${origin}${portalPath(slug)}`;
  return (
    <span className="row" style={{ gap: "0.5rem", flexWrap: "nowrap" }}>
      <a
        href={portalPath(slug)}
        target="_blank"
        rel="noopener noreferrer"
        data-testid="portal-link"
        style={{ minWidth: 0, overflowWrap: "anywhere" }}
      >
        {url}
      </a>
      <CopyButton text={url} />
    </span>
  );
}
