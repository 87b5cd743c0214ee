// Responses built from a string the door already holds. Our own server (src/server/http/node-bridge.ts)
// writes that string as it is instead of reading it back out of the Response's body stream, which
// costs a small answer more than the rest of its writing (BENCHMARKS.md, 2026-11-24 morning). To
// every other reader (Next.js's route files, tests, the idempotency record) it is an ordinary Response.
const texts = new WeakMap<Response, string>();

export function textResponse(text: string, init: ResponseInit): Response {
  const response = new Response(text, init);
  texts.set(response, text);
  return response;
}

/** The string `response` was built from, while its body is unread; undefined for any other Response. */
export function textOf(response: Response): string | undefined {
  return response.bodyUsed ? undefined : texts.get(response);
}
