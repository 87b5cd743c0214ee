// The console's home (overview.get) and navigation badges (overview.waiting): counts of the
// member's own organization only, credits left, whether anyone chatted, pending reviews; and the
// request id that console errors carry for the error alert.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { newOrganization, signInCookie, trpc, trpcErrorCode } from "../helpers";

async function seedSomeOfEverything(organizationId: string): Promise<void> {
  const db = getDb();
  const knowledgebase = await db.knowledgebase.create({ data: { organizationId, name: "Runbooks" } });
  await db.review.create({ data: { organizationId, knowledgebaseId: knowledgebase.id, kind: "page_create" } });
  await db.review.create({
    data: { organizationId, knowledgebaseId: knowledgebase.id, kind: "page_create", status: "approved" },
  });
  await db.execution.create({
    data: {
      organizationId,
      kind: "test",
      itemId: knowledgebase.id,
      itemKind: "agent",
      status: "succeeded",
      credits: 7,
      latencyMs: 1,
      input: "hi",
      trace: [],
      actor: "test",
    },
  });
}

describe("overview.get", () => {
  it("counts a new organization's areas as empty, with its credits left", async () => {
    const tenant = await newOrganization({ credits: 250 });
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const response = await trpc("query", "overview.get", undefined, { cookie });
    expect(response.status).toBe(200);
    expect(response.body.result.data).toEqual({
      creditsLeft: 250,
      hasConversations: false,
      // newOrganization issues an organization key and the owner's personal key.
      keys: 2,
      knowledgebases: 0,
      agents: 0,
      flows: 0,
      apps: 0,
      publishedApps: 0,
      endUsers: 0,
      endUsersAtLeast: false,
      portals: 0,
      members: 1,
    });
    const waiting = await trpc("query", "overview.waiting", undefined, { cookie });
    expect(waiting.body.result.data).toEqual({ pendingReviews: 0, pendingApprovals: 0 });
  });

  it("counts only the organization's own knowledgebases (not its end users' notebooks), whether anyone chatted and pending reviews", async () => {
    const mine = await newOrganization();
    const theirs = await newOrganization();
    await seedSomeOfEverything(mine.organization.id);
    const reader = await getDb().endUser.create({
      data: { organizationId: mine.organization.id, email: "reader@example.test" },
    });
    await getDb().knowledgebase.create({
      data: { organizationId: mine.organization.id, endUserId: reader.id, name: "My notebook" },
    });
    await seedSomeOfEverything(theirs.organization.id);
    await seedSomeOfEverything(theirs.organization.id);
    await getDb().conversation.create({
      data: { organizationId: theirs.organization.id, appId: crypto.randomUUID(), startedBy: "them" },
    });

    const cookie = await signInCookie(mine.owner.email, mine.owner.password);
    const overview = (await trpc("query", "overview.get", undefined, { cookie })).body.result.data;
    expect(overview).toMatchObject({ knowledgebases: 1, hasConversations: false });
    const waiting = (await trpc("query", "overview.waiting", undefined, { cookie })).body.result.data;
    expect(waiting).toEqual({ pendingReviews: 1, pendingApprovals: 0 });
    const theirCookie = await signInCookie(theirs.owner.email, theirs.owner.password);
    const theirOverview = (await trpc("query", "overview.get", undefined, { cookie: theirCookie })).body.result.data;
    expect(theirOverview).toMatchObject({ knowledgebases: 2, hasConversations: true });
  });

  it("counts end users up to 10,000 and then says there are at least that many, never counting deleted ones", async () => {
    const tenant = await newOrganization();
    const addEndUsers = (count: number, deleted = false) =>
      getDb().$executeRaw`
        insert into end_users (id, organization_id, email, deleted_at, updated_at)
        select gen_random_uuid(), ${tenant.organization.id}::uuid, 'reader-' || gen_random_uuid() || '@example.test',
          ${deleted ? new Date() : null}::timestamptz, now()
        from generate_series(1, ${count}::int)`;
    await addEndUsers(9_999);
    await addEndUsers(5, true);
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const read = async () => (await trpc("query", "overview.get", undefined, { cookie })).body.result.data;
    expect(await read()).toMatchObject({ endUsers: 9_999, endUsersAtLeast: false });
    await addEndUsers(1);
    expect(await read()).toMatchObject({ endUsers: 10_000, endUsersAtLeast: false });
    // Past the cap the home reads "10,000+ end users": a million took 0.1 s to count on every visit.
    await addEndUsers(2);
    expect(await read()).toMatchObject({ endUsers: 10_000, endUsersAtLeast: true });
  });

  it("is refused without a session, with the request id in the error for the console to show", async () => {
    const response = await trpc("query", "overview.get");
    expect(response.status).toBe(401);
    expect(trpcErrorCode(response)).toBe("unauthorized");
    expect(response.body.error.data.requestId).toBe(response.headers.get("x-request-id"));
  });
});
