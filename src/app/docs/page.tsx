"use client";
import dynamic from "next/dynamic";
import "swagger-ui-react/swagger-ui.css";

// Swagger UI touches the browser at import time, so it loads on the client only.
const SwaggerUI = dynamic(() => import("swagger-ui-react"), { ssr: false, loading: () => <p className="muted">Loading the API reference…</p> });

// Public: the OpenAPI document it renders needs no key, so the reference needs no sign-in.
export default function DocsPage() {
  return (
    <div className="panel">
      <SwaggerUI url="/api/v1/openapi.json" docExpansion="list" defaultModelsExpandDepth={0} />
    </div>
  );
}
