// Without METRICS_TOKEN the metrics endpoint does not exist: nothing is exposed by default.
import { expect, it } from "vitest";
import { GET } from "@/app/api/metrics/route";

delete process.env.METRICS_TOKEN;

it("answers 404 not_found when METRICS_TOKEN is unset, whatever is sent", async () => {
  for (const authorization of [undefined, "Bearer ", "Bearer anything-at-all-here"]) {
    const response = await GET(
      new Request("http://localhost/api/metrics", { headers: authorization ? { authorization } : {} }),
    );
    expect(response.status).toBe(404);
    expect((await response.json()).error.code).toBe("not_found");
  }
});
