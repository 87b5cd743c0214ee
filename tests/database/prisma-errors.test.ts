// The Prisma errors every door can meet, mapped by toAppError from real failures against
// PostgreSQL: a unique violation (P2002) is a 409 conflict, a missing row (P2025) a 404, and
// any other database failure a 500 server_error that names nothing of the database.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { toAppError } from "@/server/errors";

async function failureOf(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error("expected the database to refuse");
}

describe("Prisma errors through toAppError", () => {
  it("maps a unique violation (P2002) to 409 conflict, and nothing second is stored", async () => {
    const db = getDb();
    const email = `dup-${randomUUID()}@example.test`;
    await db.user.create({ data: { email } });
    const error = await failureOf(() => db.user.create({ data: { email } }));
    expect((error as { code?: string }).code).toBe("P2002");
    const mapped = toAppError(error);
    expect({ status: mapped.status, code: mapped.code }).toEqual({ status: 409, code: "conflict" });
    expect(await db.user.count({ where: { email } })).toBe(1);
  });

  it("maps a missing row on update (P2025) to 404 not_found", async () => {
    const error = await failureOf(() =>
      getDb().user.update({ where: { id: randomUUID() }, data: { email: `gone-${randomUUID()}@example.test` } }),
    );
    expect((error as { code?: string }).code).toBe("P2025");
    const mapped = toAppError(error);
    expect({ status: mapped.status, code: mapped.code }).toEqual({ status: 404, code: "not_found" });
  });

  it("maps a failure it does not know to 500 server_error without the database's message", async () => {
    const error = await failureOf(() => getDb().$executeRawUnsafe("select * from no_such_table"));
    const mapped = toAppError(error);
    expect({ status: mapped.status, code: mapped.code }).toEqual({ status: 500, code: "server_error" });
    expect(JSON.stringify(mapped.toBody())).not.toContain("no_such_table");
  });

  it("recognizes a Prisma error by name and code, not by class identity (a second copy of the client)", () => {
    const copy = Object.assign(new Error("Unique constraint failed"), {
      name: "PrismaClientKnownRequestError",
      code: "P2002",
    });
    expect(toAppError(copy).code).toBe("conflict");
  });
});
