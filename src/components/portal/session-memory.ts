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
