// Two items may share a name (the console only warns): the API accepts the second, and the list
// the console's name fields and pickers read tells them apart by state and last edit.
import { describe, expect, it } from "vitest";
import { api, newOrganization } from "../helpers";
import { create, publish } from "../builder-helpers";

describe("duplicate names", () => {
  for (const kind of ["agents", "flows", "apps"] as const)
    it(`${kind}: a second item of one name is created, and the name search returns both with state and last edit`, async () => {
      const tenant = await newOrganization();
      const key = tenant.orgKey.secret;
      const first = await create(key, kind, { name: "Support" });
      if (kind !== "apps") await publish(key, kind, first.id);
      const second = await create(key, kind, { name: "support" });
      const listed = await api("GET", `/${kind}?include=drafts&q=SUPPORT`, { key });
      expect(listed.status, listed.text).toBe(200);
      const rows = listed.body[kind] as { id: string; name: string; published: boolean; updatedAt: string }[];
      expect(rows.map((row) => [row.id, row.name, row.published])).toEqual([
        [first.id, "Support", kind !== "apps"],
        [second.id, "support", false],
      ]);
      for (const row of rows) expect(Date.parse(row.updatedAt)).not.toBeNaN();
    });
});
