// The request id rule, in one place every runtime can load (the middleware runs
// outside Node.js): a client's id matching the pattern is kept, anything else is replaced.
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

export function requestIdFrom(sent: string | null): string {
  return sent && CLIENT_REQUEST_ID.test(sent) ? sent : crypto.randomUUID();
}
