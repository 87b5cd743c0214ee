"use client";
import { useEffect, useRef, useState } from "react";

// Redoc's standalone bundle (its own React inside) renders the reference into a node React leaves
// alone. It is a code-split chunk the page's nonce'd runtime loads, so the console's
// Content-Security-Policy allows it; scripts/redoc-offline-loader.cjs keeps it from fetching
// anything but the document. Redoc has light colours only: the page stays light in a dark system
// theme. Public: the OpenAPI document it renders needs no key, so the reference needs no sign-in.
// Responses and samples stay as collapsed as Redoc's defaults leave them: every operation is on
// the page, and each expanded level multiplies what a browser (and a screen reader) walks through.
const OPTIONS = {
  // A link to the document an integrator hands to a generator (docs/api-clients.md).
  hideDownloadButton: false,
};

export default function DocsPage() {
  const target = useRef<HTMLDivElement>(null);
  const [ready, setReady] = useState(false);
  useEffect(() => {
    let current = true;
    void import("redoc/bundles/redoc.standalone.js").then(({ init }) => {
      if (current && target.current) init("/api/v1/openapi.json", OPTIONS, target.current, () => setReady(true));
    });
    return () => {
      current = false;
    };
  }, []);
  return (
    <main className="api-reference">
      {!ready && <p className="muted">Loading the API reference…</p>}
      <div ref={target} />
    </main>
  );
}
