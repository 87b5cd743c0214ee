// Cookie-authenticated doors refuse cross-site writes: a form or script on another site can make
// the browser send the cookie, but not an Origin or Sec-Fetch-Site of this site. Minimal
// version for the portal; console hardening has its own on its branch (to be folded together).
import { AppError } from "@/server/errors";

export function assertSameOrigin(request: Request): void {
  const origin = request.headers.get("origin");
  if (origin !== null && origin !== new URL(request.url).origin) {
    throw new AppError("cross_site_request", "Cross-site requests are refused.");
  }
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin") {
    throw new AppError("cross_site_request", "Cross-site requests are refused.");
  }
}
