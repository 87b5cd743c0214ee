// Times a client sends (issue 44): every time in every input of every door is the bounded
// TimestampInput (1970 to 9999), so a year PostgreSQL or JavaScript cannot hold is 400 naming the
// field, never 500. Walks every procedure's input schemas (the console's and the portal's tRPC
// routers; REST is the same procedures) and the OpenAPI document, so a new unbounded time fails here.
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { MAX_INPUT_TIME, MIN_INPUT_TIME } from "@/schemas/limits";
import { consoleAuditExportRoute } from "@/server/http/api-routes";
import { appRouter } from "@/server/trpc/root";
import { portalRouter } from "@/server/trpc/portal-root";
import { api, newOrganization, signInCookie, toApiResponse, trpc, type ApiResponse } from "../helpers";

const YEAR_ZERO = "0000-01-01T00:00:00Z";

interface ZodNode {
  _zod: { def: Record<string, any> };
}

/** Every time (a date-time string or a Date) below `schema`, with its path. */
function timesIn(
  schema: ZodNode,
  path: string,
  found: { path: string; schema: ZodNode }[],
  seen = new Set<ZodNode>(),
): void {
  const def = schema._zod.def;
  const below = (child: ZodNode | undefined, step = ""): void => {
    if (child) timesIn(child, path + step, found, seen);
  };
  switch (def.type) {
    case "string":
      if (["datetime", "date", "time"].includes(def.format)) found.push({ path, schema });
      return;
    case "date":
      found.push({ path, schema });
      return;
    case "object":
      for (const [key, child] of Object.entries<ZodNode>(def.shape)) below(child, `.${key}`);
      below(def.catchall, ".*");
      return;
    case "array":
      return below(def.element, "[]");
    case "union":
      for (const option of def.options) below(option);
      return;
    case "intersection":
      below(def.left);
      return below(def.right);
    case "record":
      below(def.keyType, ".<key>");
      return below(def.valueType, ".*");
    case "tuple":
      def.items.forEach((item: ZodNode, index: number) => below(item, `[${index}]`));
      return below(def.rest, "[]");
    case "pipe":
      below(def.in);
      return below(def.out);
    case "lazy":
      // A recursive schema: each one walked once.
      if (seen.has(schema)) return;
      seen.add(schema);
      return below(def.getter());
    default:
      return below(def.innerType);
  }
}

function procedureInputs(): { name: string; input: ZodNode }[] {
  const routers = { console: appRouter, portal: portalRouter };
  return Object.entries(routers).flatMap(([door, router]) =>
    Object.entries(router._def.procedures as unknown as Record<string, { _def: { inputs: ZodNode[] } }>).flatMap(
      ([path, procedure]) => procedure._def.inputs.map((input) => ({ name: `${door} ${path}`, input })),
    ),
  );
}

describe("every time a client sends is bounded", () => {
  it("walks every procedure's input: each time refuses year 0 and takes 1970 to 9999", () => {
    const inputs = procedureInputs();
    expect(inputs.length).toBeGreaterThan(100);
    const times: string[] = [];
    const unbounded: string[] = [];
    for (const { name, input } of inputs) {
      const found: { path: string; schema: ZodNode }[] = [];
      timesIn(input, "", found);
      for (const { path, schema } of found) {
        const time = schema as unknown as z.ZodType;
        times.push(`${name}${path}`);
        const bounded =
          !time.safeParse(YEAR_ZERO).success &&
          time.safeParse(MIN_INPUT_TIME).success &&
          time.safeParse(MAX_INPUT_TIME).success;
        if (!bounded) unbounded.push(`${name}${path}`);
      }
    }
    // The walk finds the times it must (a walk that finds nothing proves nothing).
    expect(times).toEqual(expect.arrayContaining(["console audit.list.from", "console usage.get.to"]));
    expect(unbounded).toEqual([]);
  });

  it("shows the range in the OpenAPI document on every time a request carries", async () => {
    const doc = (await api("GET", "/openapi.json")).body;
    const resolve = (schema: any): any => {
      let current = schema ?? {};
      while (current.$ref) current = doc.components.schemas[String(current.$ref).split("/").pop()!];
      return current;
    };
    const unbounded: string[] = [];
    let times = 0;
    const visit = (schema: any, where: string, seen: Set<unknown>) => {
      const resolved = resolve(schema);
      if (seen.has(resolved)) return;
      seen.add(resolved);
      if (resolved.format === "date-time" || resolved.format === "date") {
        times++;
        const pattern = resolved.pattern ? new RegExp(resolved.pattern) : null;
        if (!pattern || pattern.test(YEAR_ZERO) || !pattern.test(MIN_INPUT_TIME) || !pattern.test(MAX_INPUT_TIME))
          unbounded.push(where);
      }
      for (const [key, child] of Object.entries<any>(resolved.properties ?? {})) visit(child, `${where}.${key}`, seen);
      for (const key of ["items", "additionalProperties"])
        if (typeof resolved[key] === "object") visit(resolved[key], where, seen);
      for (const key of ["anyOf", "oneOf", "allOf"])
        for (const option of resolved[key] ?? []) visit(option, where, seen);
    };
    for (const [path, operations] of Object.entries<any>(doc.paths)) {
      for (const [method, operation] of Object.entries<any>(operations)) {
        for (const parameter of operation.parameters ?? [])
          visit(parameter.schema, `${method.toUpperCase()} ${path} ${parameter.name}`, new Set());
        const body = operation.requestBody?.content?.["application/json"]?.schema;
        if (body) visit(body, `${method.toUpperCase()} ${path} body`, new Set());
      }
    }
    expect(times).toBeGreaterThan(3);
    expect(unbounded).toEqual([]);
  });
});

function expectInvalid(response: ApiResponse, field: string, problems: { path: string }[] | undefined) {
  expect({
    status: response.status,
    code: response.body?.error?.data?.appError?.code ?? response.body?.error?.code,
  }).toEqual({
    status: 400,
    code: "invalid_request",
  });
  expect(response.headers.get("content-type")).toContain("application/json");
  expect((problems ?? []).map((problem) => problem.path)).toContain(field);
}

describe("a time out of range through the doors", () => {
  const bad = encodeURIComponent(YEAR_ZERO);

  it("is 400 naming the field on REST: the audit list, its export (before any header) and usage", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    for (const [path, field] of [
      [`/audit-events?from=${bad}`, "from"],
      [`/audit-events?to=${bad}`, "to"],
      [`/audit-events/export?from=${bad}`, "from"],
      [`/audit-events/export?format=csv&to=${bad}`, "to"],
      [`/usage?to=${bad}`, "to"],
      [`/usage?from=${bad}&format=csv`, "from"],
    ] as const) {
      const response = await api("GET", path, { key });
      expectInvalid(response, field, response.body?.error?.problems);
    }
    // In range, the same requests answer.
    expect((await api("GET", `/audit-events?from=${encodeURIComponent(MIN_INPUT_TIME)}`, { key })).status).toBe(200);
    expect((await api("GET", `/audit-events/export?to=${encodeURIComponent(MAX_INPUT_TIME)}`, { key })).status).toBe(
      200,
    );
  });

  it("is 400 naming the field on the console: the audit list, its export and usage", async () => {
    const tenant = await newOrganization();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    for (const [procedure, input, field] of [
      ["audit.list", { from: YEAR_ZERO }, "from"],
      ["audit.list", { to: YEAR_ZERO }, "to"],
      ["usage.get", { to: YEAR_ZERO }, "to"],
      ["usage.scoped", { from: YEAR_ZERO }, "from"],
    ] as const) {
      const response = await trpc("query", procedure, input, { cookie });
      expectInvalid(response, field, response.body?.error?.data?.appError?.problems);
    }
    const download = await toApiResponse(
      await consoleAuditExportRoute(
        new Request(`http://localhost/api/console/audit-events/export?format=csv&from=${bad}`, { headers: { cookie } }),
      ),
    );
    expectInvalid(download, "from", download.body?.error?.problems);
  });
});
