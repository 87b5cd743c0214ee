// MCP connection URLs pass the same SSRF guard as URL sources and model providers (here the
// operator has NOT allowed private addresses): refused when written, and again per request.
import { expect, it } from "vitest";
import { getDb } from "@/server/db";
import { createMcpConnection, listMcpConnectionTools } from "@/server/services/org/mcp-connections";
import { newOrganization } from "../helpers";

it("refuses private, loopback and link-local URLs when written, and writes nothing", async () => {
  const tenant = await newOrganization();
  for (const url of [
    "http://127.0.0.1:8080/mcp",
    "http://169.254.169.254/latest",
    "http://10.0.0.5/mcp",
    "http://[::1]/mcp",
  ]) {
    await expect(
      createMcpConnection(getDb(), tenant.operator, { slug: "internal", name: "Internal", url, headers: [] }),
    ).rejects.toMatchObject({
      code: "invalid_request",
    });
  }
  expect(await getDb().mcpConnection.count({ where: { organizationId: tenant.organization.id } })).toBe(0);
});

it("checks the URL again before every request: a stored private URL is never called", async () => {
  const tenant = await newOrganization();
  const row = await getDb().mcpConnection.create({
    data: {
      organizationId: tenant.organization.id,
      slug: "stale",
      name: "Stale",
      url: "http://127.0.0.1:9/mcp",
      headerNames: [],
    },
  });
  await expect(listMcpConnectionTools(getDb(), tenant.operator, { connectionId: row.id })).rejects.toMatchObject({
    code: "provider_error",
    status: 502,
    message: expect.stringContaining("Only public addresses"),
  });
});
