// The embedded chat's end-user session, held in the frame's memory only: a frame on another
// site's page may not keep cookies (third-party cookies blocked), so the portal's calls carry it
// as `Authorization: Bearer` instead. Outside the embed there is none and the cookie is used.

let session: string | null = null;

export function setEmbedSession(token: string | null): void {
  session = token;
}

/** The header the portal's calls add in the embed; none elsewhere. */
export function embedSessionHeaders(): Record<string, string> {
  return session ? { Authorization: `Bearer ${session}` } : {};
}
