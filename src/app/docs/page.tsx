"use client";
import { useEffect, useState } from "react";

// RapiDoc is a web component (no React peer): it is defined by importing its module, in the
// browser only. `load-fonts="false"` keeps it from fetching Open Sans from Google's CDN; the
// console's Content-Security-Policy allows its bundled script (nonce, 'strict-dynamic') and its
// inline styles. Public: the OpenAPI document it renders needs no key, so the reference needs no sign-in.
export default function DocsPage() {
  const [ready, setReady] = useState(false);
  useEffect(() => {
    void import("rapidoc").then(() => setReady(true));
  }, []);
  if (!ready) return <p className="muted">Loading the API reference…</p>;
  return (
    <div className="panel api-reference">
      <rapi-doc
        spec-url="/api/v1/openapi.json"
        load-fonts="false"
        render-style="read"
        show-header="false"
        allow-try="true"
        allow-server-selection="false"
        schema-description-expanded="true"
        style={{ height: "100vh", width: "100%" }}
      />
    </div>
  );
}
