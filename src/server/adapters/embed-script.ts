// GET /embed.js: the <atrium-chat> element, served to the organization's own pages.
import { EMBED_SCRIPT } from "@/server/embed/widget-script";

export function embedScriptResponse(request: Request): Response {
  return new Response(request.method === "HEAD" ? null : EMBED_SCRIPT, {
    status: 200,
    headers: {
      "Content-Type": "text/javascript; charset=utf-8",
      // Loaded by other origins' pages as a classic script.
      "Cross-Origin-Resource-Policy": "cross-origin",
      "Cache-Control": "public, max-age=300",
    },
  });
}
