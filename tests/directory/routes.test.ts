// Both servers answer /scim/v2: our own server straight from its route table, Next.js from the route file.
import { describe, expect, it } from "vitest";
import { scimRoute } from "@/server/http/api-routes";
import { directHandlerFor } from "@/server/http/direct-routes";
import * as routeFile from "@/app/scim/v2/[...path]/route";

describe("the SCIM routes", () => {
  it("are served by our server and by the Next.js route file with the same handler", () => {
    for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"]) {
      expect(directHandlerFor("/scim/v2/Users", method)).toBe(scimRoute);
      expect(directHandlerFor("/scim/v2/Groups/abc", method)).toBe(scimRoute);
      expect(routeFile[method as "GET"]).toBe(scimRoute);
    }
    expect(directHandlerFor("/scim/v2/Users/", "GET")).toBeUndefined();
    expect(directHandlerFor("/scimx/v2/Users", "GET")).toBeUndefined();
  });
});
