// Scopes and roles, and input validation of procedures with a body. These run a test-only
// router of probe services with the real procedure factories, over actors made from real keys.
import { describe, expect, it } from "vitest";
import { createOpenApiFetchHandler } from "trpc-to-openapi";
import { z } from "zod";
import type { Role, Scope } from "@/schemas/identity/auth";
import type { Actor, EndUserActor, KeyActor } from "@/server/auth/actor";
import { authenticateApiKey } from "@/server/auth/authenticate";
import { authorize, requiredRole } from "@/server/auth/authorize";
import { guarded } from "@/server/auth/guarded";
import { getDb, type Db } from "@/server/db";
import { toAppError } from "@/server/errors";
import { createCallerFactory, router, scopedProcedure, type Context } from "@/server/trpc/init";
import { addPerson, issueKey, newOrganization, type Tenant } from "../helpers";

const Body = z.strictObject({ name: z.string().min(1), size: z.number().int().optional() });

// Probe services declaring their requirements, as the real services do.
const readProbe = guarded({ scope: "knowledge:read" }, async (_db: Db, _actor: Actor) => ({ ok: true }));
const writeProbe = guarded(
  { scope: "knowledge:write" },
  async (_db: Db, _actor: Actor, input: z.infer<typeof Body>) => ({ name: input.name }),
);
const removeProbe = guarded({ scope: "knowledge:write", may: "delete" }, async (_db: Db, _actor: Actor) => ({
  ok: true,
}));
const anyKeyProbe = guarded({}, async (_db: Db, _actor: Actor) => ({ ok: true }));

const probeRouter = router({
  read: scopedProcedure(readProbe.requirement)
    .meta({ openapi: { method: "GET", path: "/probe" } })
    .input(z.strictObject({}))
    .output(z.object({ ok: z.boolean() }))
    .query(({ ctx }) => readProbe(ctx.db, ctx.actor)),
  write: scopedProcedure(writeProbe.requirement)
    .meta({ openapi: { method: "POST", path: "/probe" } })
    .input(Body)
    .output(z.object({ name: z.string() }))
    .mutation(({ ctx, input }) => writeProbe(ctx.db, ctx.actor, input)),
  remove: scopedProcedure(removeProbe.requirement)
    .meta({ openapi: { method: "DELETE", path: "/probe" } })
    .input(z.strictObject({}))
    .output(z.object({ ok: z.boolean() }))
    .mutation(({ ctx }) => removeProbe(ctx.db, ctx.actor)),
  anyKey: scopedProcedure(anyKeyProbe.requirement)
    .input(z.strictObject({}))
    .output(z.object({ ok: z.boolean() }))
    .query(({ ctx }) => anyKeyProbe(ctx.db, ctx.actor)),
});
const createCaller = createCallerFactory(probeRouter);

function context(actor: Actor | null): Context {
  return { db: getDb(), actor, requestId: "test", response: { headers: new Headers() } };
}

/** The product error a call fails with (code and status), or "ok". */
async function outcome(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return "ok";
  } catch (error) {
    const appError = toAppError(error);
    return `${appError.status} ${appError.code}`;
  }
}

/** The actor the REST door builds for a real key. */
async function keyActor(secret: string): Promise<KeyActor> {
  return (await authenticateApiKey(getDb(), `Bearer ${secret}`, "api")).actor;
}

async function personalKeyActor(tenant: Tenant, role: Role, scopes?: Scope[]): Promise<KeyActor> {
  const person = await addPerson(tenant.operator, role);
  const key = await issueKey(tenant.operator, { kind: "personal", memberId: person.member.id, scopes });
  return keyActor(key.secret);
}

describe("authorize()", () => {
  const orgKey = (scopes: Scope[]): KeyActor => ({
    kind: "key",
    organizationId: "org",
    keyId: "k",
    keyName: "org key",
    keyKind: "organization",
    scopes,
    member: null,
  });
  const personalKey = (role: Role, scopes: Scope[]): KeyActor => ({
    ...orgKey(scopes),
    keyKind: "personal",
    member: { id: "m", role, email: "p@example.test" },
  });
  const codeOf = (fn: () => void): string => {
    try {
      fn();
      return "ok";
    } catch (error) {
      return toAppError(error).code;
    }
  };

  it("refuses an organization key lacking the scope with insufficient_scope (403)", () => {
    let thrown: unknown;
    try {
      authorize(orgKey(["knowledge:read"]), { scope: "knowledge:write" });
    } catch (error) {
      thrown = error;
    }
    expect(toAppError(thrown).toBody()).toMatchObject({
      code: "insufficient_scope",
      message: expect.stringContaining("knowledge:write"),
    });
    expect(toAppError(thrown).status).toBe(403);
  });

  it("lets an organization key with the scope do anything the scope covers, deletes included", () => {
    expect(codeOf(() => authorize(orgKey(["knowledge:write"]), { scope: "knowledge:write" }))).toBe("ok");
    expect(codeOf(() => authorize(orgKey(["knowledge:write"]), { scope: "knowledge:write", may: "delete" }))).toBe(
      "ok",
    );
  });

  it("refuses a personal key with the scope but a viewer role for a write with forbidden_role", () => {
    expect(codeOf(() => authorize(personalKey("viewer", ["knowledge:write"]), { scope: "knowledge:write" }))).toBe(
      "forbidden_role",
    );
    expect(codeOf(() => authorize(personalKey("member", ["knowledge:write"]), { scope: "knowledge:write" }))).toBe(
      "ok",
    );
    expect(codeOf(() => authorize(personalKey("viewer", ["knowledge:read"]), { scope: "knowledge:read" }))).toBe("ok");
  });

  it("refuses a delete to a personal key below admin with forbidden_role", () => {
    const deletion = { scope: "knowledge:write", may: "delete" } as const;
    expect(codeOf(() => authorize(personalKey("member", ["knowledge:write"]), deletion))).toBe("forbidden_role");
    expect(codeOf(() => authorize(personalKey("admin", ["knowledge:write"]), deletion))).toBe("ok");
    expect(codeOf(() => authorize(personalKey("owner", ["knowledge:write"]), deletion))).toBe("ok");
  });

  it("checks the scope before the role", () => {
    expect(codeOf(() => authorize(personalKey("viewer", ["knowledge:read"]), { scope: "knowledge:write" }))).toBe(
      "insufficient_scope",
    );
  });

  it("judges signed-in members by role alone and lets the operator do everything", () => {
    const member = (role: Role): Actor => ({
      kind: "member",
      organizationId: "org",
      member: { id: "m", role, email: "m@example.test" },
    });
    expect(codeOf(() => authorize(member("viewer"), { scope: "knowledge:write" }))).toBe("forbidden_role");
    expect(codeOf(() => authorize(member("member"), { scope: "knowledge:write" }))).toBe("ok");
    expect(codeOf(() => authorize(member("admin"), { may: "owners" }))).toBe("forbidden_role");
    expect(codeOf(() => authorize({ kind: "operator", organizationId: "org" }, { may: "owners" }))).toBe("ok");
  });

  it("refuses a portal's end user unless the requirement opens to end users", () => {
    const endUser: EndUserActor = {
      kind: "end_user",
      organizationId: "org",
      endUser: { id: "e", email: "e@example.test", fullName: "" },
      portalId: "p",
    };
    expect(codeOf(() => authorize(endUser, { scope: "apps:read" }))).toBe("forbidden_role");
    expect(codeOf(() => authorize(endUser, {}))).toBe("forbidden_role");
    expect(codeOf(() => authorize(endUser, { scope: "apps:execute", endUsers: true }))).toBe("ok");
  });

  it("defaults to member for writes and viewer for reads", () => {
    expect(requiredRole({ scope: "apps:write" })).toBe("member");
    expect(requiredRole({ scope: "apps:read" })).toBe("viewer");
    expect(requiredRole({ scope: "apps:execute" })).toBe("viewer");
    expect(requiredRole({ scope: "apps:read", may: "review" })).toBe("admin");
  });
});

describe("scopedProcedure with real keys", () => {
  it("refuses an organization key without the scope with insufficient_scope", async () => {
    const tenant = await newOrganization();
    const key = await issueKey(tenant.operator, { kind: "organization", scopes: ["knowledge:read"] });
    const caller = createCaller(context(await keyActor(key.secret)));
    expect(await outcome(caller.read({}))).toBe("ok");
    expect(await outcome(caller.write({ name: "x" }))).toBe("403 insufficient_scope");
    expect(await outcome(caller.remove({}))).toBe("403 insufficient_scope");
  });

  it("refuses a viewer's personal key for a write with forbidden_role though it has the scope", async () => {
    const tenant = await newOrganization();
    const caller = createCaller(context(await personalKeyActor(tenant, "viewer")));
    expect(await outcome(caller.read({}))).toBe("ok");
    expect(await outcome(caller.write({ name: "x" }))).toBe("403 forbidden_role");
  });

  it("needs admin for a delete with a personal key", async () => {
    const tenant = await newOrganization();
    const member = createCaller(context(await personalKeyActor(tenant, "member")));
    expect(await outcome(member.write({ name: "x" }))).toBe("ok");
    expect(await outcome(member.remove({}))).toBe("403 forbidden_role");
    const admin = createCaller(context(await personalKeyActor(tenant, "admin")));
    expect(await outcome(admin.remove({}))).toBe("ok");
  });

  it("says insufficient_scope rather than forbidden_role when both apply", async () => {
    const tenant = await newOrganization();
    const caller = createCaller(context(await personalKeyActor(tenant, "viewer", ["knowledge:read"])));
    expect(await outcome(caller.write({ name: "x" }))).toBe("403 insufficient_scope");
  });

  it("accepts any valid key when no scope is named, and refuses a call with no actor", async () => {
    const tenant = await newOrganization();
    const key = await issueKey(tenant.operator, { kind: "organization", scopes: ["apps:execute"] });
    expect(await outcome(createCaller(context(await keyActor(key.secret))).anyKey({}))).toBe("ok");
    expect(await outcome(createCaller(context(null)).anyKey({}))).toBe("401 unauthorized");
  });

  it("checks scope and role before validating the input", async () => {
    const tenant = await newOrganization();
    const key = await issueKey(tenant.operator, { kind: "organization", scopes: ["knowledge:read"] });
    const noScope = createCaller(context(await keyActor(key.secret)));
    expect(await outcome(noScope.write({ name: 1 } as never))).toBe("403 insufficient_scope");
    const viewer = createCaller(context(await personalKeyActor(tenant, "viewer")));
    expect(await outcome(viewer.write({ name: 1 } as never))).toBe("403 forbidden_role");
  });
});

describe("input validation (invalid_request)", () => {
  async function validationError(input: unknown) {
    const tenant = await newOrganization();
    const caller = createCaller(context(await keyActor(tenant.orgKey.secret)));
    try {
      await caller.write(input as z.infer<typeof Body>);
    } catch (error) {
      return toAppError(error);
    }
    throw new Error("the call was accepted");
  }

  it("names an unknown field", async () => {
    const error = await validationError({ name: "x", colour: "red" });
    expect(error.status).toBe(400);
    expect(error.toBody()).toEqual({
      code: "invalid_request",
      message: expect.stringContaining("colour"),
      problems: [{ path: "colour", message: "Unknown field" }],
    });
  });

  it("names a field of the wrong type", async () => {
    const error = await validationError({ name: 42 });
    expect(error.code).toBe("invalid_request");
    expect(error.message).toContain("name");
    expect(error.extra.problems).toEqual([{ path: "name", message: expect.stringMatching(/string/) }]);
  });

  it("names a missing required field", async () => {
    const error = await validationError({});
    expect(error.code).toBe("invalid_request");
    expect(error.extra.problems).toEqual([{ path: "name", message: expect.any(String) }]);
  });

  it("lists every problem, not only the first", async () => {
    const error = await validationError({ name: 42, size: 1.5, colour: "red" });
    const problems = error.extra.problems as { path: string }[];
    expect(problems.map((p) => p.path).sort()).toEqual(["colour", "name", "size"]);
    expect(error.message).toMatch(/and 2 more problems/);
  });

  it("maps what trpc-to-openapi reports for a body that is not JSON or has an unknown field to invalid_request", async () => {
    const tenant = await newOrganization();
    const actor = await keyActor(tenant.orgKey.secret);
    const send = async (body: string) => {
      let failure: unknown;
      const response = await createOpenApiFetchHandler({
        endpoint: "/api/v1",
        req: new Request("http://localhost/api/v1/probe", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        }),
        router: probeRouter,
        createContext: () => context(actor),
        onError: ({ error }) => {
          failure = error;
        },
      });
      return { status: response.status, error: failure === undefined ? undefined : toAppError(failure) };
    };

    const malformed = await send('{"name": ');
    expect(malformed.status).toBe(400);
    expect(malformed.error?.toBody()).toEqual({ code: "invalid_request", message: expect.stringMatching(/JSON/) });
    const unknownField = await send('{"name":"x","colour":"red"}');
    expect(unknownField.error?.toBody()).toMatchObject({
      code: "invalid_request",
      problems: [{ path: "colour", message: "Unknown field" }],
    });
    expect((await send('{"name":"x"}')).status).toBe(200);
  });
});
