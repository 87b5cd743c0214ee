// guarded() (src/server/auth/guarded.ts): a service function carrying its requirement, checked
// before the function runs whichever door calls it.
import { describe, expect, it } from "vitest";
import type { BuilderKind } from "@/schemas/builder";
import type { Actor, KeyActor } from "@/server/auth/actor";
import { guarded, guardedByKind } from "@/server/auth/guarded";
import { toAppError } from "@/server/errors";

async function refusal(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return "ok";
  } catch (error) {
    return toAppError(error).code;
  }
}

describe("guarded()", () => {
  const operator: Actor = { kind: "operator", organizationId: "org" };
  const member = (role: "viewer" | "member"): Actor => ({ kind: "member", organizationId: "org", member: { id: "m", role, email: "m@example.test" } });

  it("keeps the function's name and carries its requirement, frozen", () => {
    const requirement = { scope: "knowledge:write" } as const;
    const writeThing = guarded(requirement, async function writeThing(_db: unknown, _actor: Actor, input: { n: number }) {
      return input.n;
    });
    expect(writeThing.name).toBe("writeThing");
    expect(writeThing.requirement).toEqual(requirement);
    expect(writeThing.requirement).not.toBe(requirement);
    expect(Object.isFrozen(writeThing.requirement)).toBe(true);
    expect(() => Object.assign(writeThing, { requirement: {} })).toThrow(TypeError);
  });

  it("refuses with a rejected promise, before the function runs", async () => {
    let ran = false;
    const writeThing = guarded({ scope: "knowledge:write" }, async (_db: unknown, _actor: Actor) => {
      ran = true;
    });
    const call = writeThing(null, member("viewer"));
    expect(call).toBeInstanceOf(Promise);
    expect(await refusal(call)).toBe("forbidden_role");
    expect(ran).toBe(false);
    expect(await refusal(writeThing(null, member("member")))).toBe("ok");
    expect(ran).toBe(true);
  });

  it("judges a kind-dependent function by its kind, with one requirement object per kind", async () => {
    const writeItem = guardedByKind(
      (kind) => ({ scope: kind === "agent" ? "agents:write" : "apps:write" }),
      async (_db: unknown, _actor: Actor, _kind: BuilderKind) => "done",
    );
    expect(writeItem.requirementFor("agent")).toBe(writeItem.requirementFor("agent"));
    expect(writeItem.requirementFor("agent").scope).toBe("agents:write");
    const agentsOnly: KeyActor = { kind: "key", organizationId: "org", keyId: "k", keyName: "k", keyKind: "organization", scopes: ["agents:write"], member: null };
    expect(await refusal(writeItem(null, agentsOnly, "agent"))).toBe("ok");
    expect(await refusal(writeItem(null, agentsOnly, "app"))).toBe("insufficient_scope");
    expect(await refusal(writeItem(null, operator, "app"))).toBe("ok");
  });
});
