// The document says what the conventions do: Idempotency-Key on every POST with the
// Idempotent-Replayed header on its successes, WWW-Authenticate on every 401.
import { describe, expect, it } from "vitest";
import { openApiDocument } from "@/server/openapi";

type Response = { $ref?: string; headers?: Record<string, unknown> };
type Operation = { parameters?: { name: string; in: string }[]; responses: Record<string, Response> };

/** A response as written, or the shared one under components.responses that it names. */
function resolved(response: Response): Response {
  if (!response.$ref) return response;
  const name = response.$ref.replace("#/components/responses/", "");
  return (openApiDocument().components?.responses as Record<string, Response>)[name]!;
}

function operations(): [string, string, Operation][] {
  return Object.entries(openApiDocument().paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item as Record<string, Operation>).map(([method, operation]): [string, string, Operation] => [
      method,
      path,
      operation,
    ]),
  );
}

describe("conventions in the OpenAPI document", () => {
  it("documents Idempotency-Key on every POST and Idempotent-Replayed on its successes", () => {
    const posts = operations().filter(([method]) => method === "post");
    expect(posts.length).toBeGreaterThan(20);
    for (const [, path, operation] of posts) {
      expect(
        operation.parameters?.filter((p) => p.name === "Idempotency-Key" && p.in === "header"),
        path,
      ).toHaveLength(1);
      for (const [status, response] of Object.entries(operation.responses)) {
        if (status.startsWith("2") && status !== "204")
          expect(resolved(response).headers?.["Idempotent-Replayed"], `${path} ${status}`).toBeTruthy();
      }
    }
  });

  it("documents WWW-Authenticate on every 401", () => {
    for (const [method, path, operation] of operations()) {
      const unauthorized = operation.responses["401"];
      if (unauthorized) expect(resolved(unauthorized).headers?.["WWW-Authenticate"], `${method} ${path}`).toBeTruthy();
    }
  });
});
