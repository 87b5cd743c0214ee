// Whether this browser tab had a portal session, so a 401 can say "your session has ended"
// instead of greeting a first visit with it. Kept in sessionStorage per portal.

const key = (portal: string) => `atrium.portal.signedIn.${portal}`;

function storage(): Storage | null {
  try {
    return typeof window === "undefined" ? null : window.sessionStorage;
  } catch {
    return null;
  }
}

export function markSignedIn(portal: string): void {
  storage()?.setItem(key(portal), "1");
}

export function markSignedOut(portal: string): void {
  storage()?.removeItem(key(portal));
}

export function wasSignedIn(portal: string): boolean {
  return storage()?.getItem(key(portal)) === "1";
}

// A mailed export link's token (the fragment of /p/<slug>/conversations#export=…), kept in this
// tab while the person signs in first, so that sign-in brings them back to it.
const exportLinkKey = (portal: string) => `atrium.portal.exportLink.${portal}`;

export function keepExportLink(portal: string, token: string): void {
  storage()?.setItem(exportLinkKey(portal), token);
}

export function keptExportLink(portal: string): string | null {
  return storage()?.getItem(exportLinkKey(portal)) ?? null;
}

export function forgetExportLink(portal: string): void {
  storage()?.removeItem(exportLinkKey(portal));
}
