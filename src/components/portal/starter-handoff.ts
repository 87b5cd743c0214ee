// A conversation starter chosen on the home page, handed to the chat page (which sends it) in
// sessionStorage rather than the URL, so no link can make an end user spend a credit. Where
// storage is denied (the embedded chat in a browser blocking third-party storage) it waits in
// memory instead, which a client-side navigation keeps.

const KEY = "atrium.portal.starter";
let inMemory: string | null = null;

function storage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

export function handOffStarter(appId: string, message: string): void {
  const value = JSON.stringify({ appId, message });
  const store = storage();
  if (store) store.setItem(KEY, value);
  else inMemory = value;
}

/** The starter waiting for this app, taken once. */
export function takeStarter(appId: string): string | null {
  const store = storage();
  const raw = store ? store.getItem(KEY) : inMemory;
  if (!raw) return null;
  if (store) store.removeItem(KEY);
  else inMemory = null;
  try {
    const value = JSON.parse(raw) as { appId?: string; message?: string };
    return value.appId === appId && typeof value.message === "string" ? value.message : null;
  } catch {
    return null;
  }
}
