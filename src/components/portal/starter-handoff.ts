// A conversation starter chosen on the home page, handed to the chat page (which sends it) in
// sessionStorage rather than the URL, so no link can make an end user spend a credit.

const KEY = "atrium.portal.starter";

export function handOffStarter(appId: string, message: string): void {
  sessionStorage.setItem(KEY, JSON.stringify({ appId, message }));
}

/** The starter waiting for this app, taken once. */
export function takeStarter(appId: string): string | null {
  const raw = sessionStorage.getItem(KEY);
  if (!raw) return null;
  sessionStorage.removeItem(KEY);
  try {
    const value = JSON.parse(raw) as { appId?: string; message?: string };
    return value.appId === appId && typeof value.message === "string" ? value.message : null;
  } catch {
    return null;
  }
}
