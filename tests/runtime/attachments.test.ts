// Files attached to a conversation turn (the contract's "Attachments"), over real HTTP through the
// request listener `npm start` serves: POST /files and multipart turns, typed by content, bounded
// (count, size, request) with nothing written on a refusal; the reply quotes the attachment's
// phrase with a citation; only the conversation's owner and the organization's admins read the
// file; images only for models that accept them; the file goes with retention and erasure.
// Extraction starts a child process per PDF: a loaded machine needs more than the default 30 s.
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { runApprovalsOnce } from "@/server/jobs/approvals";
import { sweepConversationsWhenDue, sweepExpiredConversations } from "@/server/services/org/retention";
import { create, publish } from "../builder-helpers";
import { addPerson, api, issueKey, newOrganization, signInCookie } from "../helpers";
import { pdfWithContent } from "../pdf-fixtures";
import { listenOnLoopback, type LoopbackServer } from "../loopback-server";
import { portalCall, portalScenario, signIn, errorCode, clientAddress, type PortalScenario } from "../portal/helpers";
import { credits } from "../runtime-helpers";
import { mcpSuite, structured } from "../mcp-helpers";

const mcp = mcpSuite();

let server: LoopbackServer;
beforeAll(async () => {
  server = await listenOnLoopback(0);
});
afterAll(() => server.close());

const PHRASE = "The Falcon drill carries a warranty of seven years from the date of purchase.";
const QUESTION = "How long is the warranty on the Falcon drill?";

interface Part {
  name: string;
  bytes: Uint8Array | string;
}

async function send(
  key: string,
  method: string,
  path: string,
  body?: FormData | object,
): Promise<{ status: number; body: any }> {
  const form = body instanceof FormData;
  const response = await fetch(`${server.base}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body && !form ? { "content-type": "application/json" } : {}) },
    body: body === undefined ? undefined : form ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text.startsWith("{") ? JSON.parse(text) : text };
}

function formOf(fields: Record<string, string | string[]>, files: Part[]): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields))
    for (const one of Array.isArray(value) ? value : [value]) form.append(name, one);
  for (const file of files) form.append("file", new File([file.bytes as BlobPart], file.name));
  return form;
}

const uploadFile = (key: string, file: Part, fields: Record<string, string> = {}) =>
  send(key, "POST", "/files", formOf(fields, [file]));

const pdf = (text: string) => pdfWithContent(`BT /F1 12 Tf 72 720 Td (${text}) Tj ET`);

/** A real 1×1 PNG. */
function png(): Uint8Array {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(1, 0);
  header.writeUInt32BE(1, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return new Uint8Array(
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk("IHDR", header),
      chunk("IDAT", zlib.deflateSync(Buffer.from([0, 255, 0, 0]))),
      chunk("IEND", Buffer.alloc(0)),
    ]),
  );
}

async function writtenFor(scenario: PortalScenario) {
  const organizationId = scenario.tenant.organization.id;
  const db = getDb();
  return {
    attachments: await db.attachment.count({ where: { organizationId } }),
    conversations: await db.conversation.count({ where: { organizationId } }),
    executions: await db.execution.count({ where: { organizationId } }),
    credits: await credits(scenario.tenant),
  };
}

describe("attachments in a conversation turn", { timeout: 120_000 }, () => {
  it("quotes a PDF's phrase with a citation to the attachment (multipart turn)", async () => {
    const scenario = await portalScenario();
    const turn = await send(
      scenario.key,
      "POST",
      `/apps/${scenario.appId}/conversation`,
      formOf({ message: QUESTION, endUserId: scenario.endUser.id, portalId: scenario.portal.id }, [
        { name: "drill-manual.pdf", bytes: pdf(PHRASE) },
      ]),
    );
    expect(turn.status, JSON.stringify(turn.body)).toBe(200);
    expect(turn.body.reply).toContain(
      "The Falcon drill carries a warranty of seven years from the date of purchase [1].",
    );
    const file = await getDb().attachment.findFirstOrThrow({
      where: { organizationId: scenario.tenant.organization.id },
    });
    expect(turn.body.citations).toEqual([
      expect.objectContaining({ n: 1, kind: "attachment", id: file.id, knowledgebaseId: null, title: "Drill manual" }),
    ]);
    expect(file).toMatchObject({
      format: "pdf",
      conversationId: turn.body.conversation_id,
      endUserId: scenario.endUser.id,
    });
    // Attachments are never searchable in a knowledgebase.
    expect(await getDb().sourceChunk.count({ where: { text: { contains: "Falcon" } } })).toBe(0);
  });

  it("takes TXT, MD and CSV by fileIds, each cited when it answers", async () => {
    const scenario = await portalScenario();
    const onBehalf = { endUserId: scenario.endUser.id, portalId: scenario.portal.id };
    const files = [
      { name: "notes.txt", bytes: `Opening hours.\n\n${PHRASE}` },
      { name: "guide.md", bytes: "# Storage\n\nKeep the Falcon battery charged between 40 and 80 percent." },
      { name: "prices.csv", bytes: "item,price\nFalcon drill,129 euros\n" },
    ];
    const uploaded = [];
    for (const file of files) {
      const answer = await uploadFile(scenario.key, file, { endUserId: scenario.endUser.id });
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      uploaded.push(answer.body.file);
    }
    expect(uploaded.map((file) => file.format)).toEqual(["text", "markdown", "csv"]);
    const turn = await send(scenario.key, "POST", `/apps/${scenario.appId}/conversation`, {
      message: "How should the Falcon battery be charged?",
      fileIds: uploaded.map((file) => file.id),
      ...onBehalf,
    });
    expect(turn.status, JSON.stringify(turn.body)).toBe(200);
    expect(turn.body.reply).toContain("between 40 and 80 percent [1]");
    expect(turn.body.citations[0]).toMatchObject({ kind: "attachment", id: uploaded[1].id, title: "Guide" });
    const stored = await getDb().attachment.findMany({ where: { id: { in: uploaded.map((file) => file.id) } } });
    expect(stored.every((file) => file.conversationId === turn.body.conversation_id)).toBe(true);
    // A file used by one conversation cannot be attached to another.
    const again = await send(scenario.key, "POST", `/apps/${scenario.appId}/conversation`, {
      message: QUESTION,
      fileIds: [uploaded[0].id],
      ...onBehalf,
    });
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe("not_found");
  });

  it("shows the sent turn's files in the end user's transcript", async () => {
    const scenario = await portalScenario();
    const cookie = await signIn(scenario, scenario.endUser.email, clientAddress());
    const upload = await fetch(`${server.base}/api/portal/${scenario.portal.slug}/files`, {
      method: "POST",
      headers: { cookie, origin: server.base },
      body: formOf({}, [{ name: "drill-manual.pdf", bytes: pdf(PHRASE) }]),
    });
    expect(upload.status).toBe(201);
    const { file } = (await upload.json()) as any;
    const turn = await fetch(`${server.base}/api/portal/${scenario.portal.slug}/apps/${scenario.appId}/conversation`, {
      method: "POST",
      headers: { cookie, origin: server.base, "content-type": "application/json" },
      body: JSON.stringify({ message: QUESTION, fileIds: [file.id] }),
    });
    const events = await turn.text();
    expect(events).toContain("seven years");
    const conversationId = /"conversation_id":"([^"]+)"/.exec(events)![1];
    const transcript = await portalCall(
      "query",
      "conversations.get",
      { portal: scenario.portal.slug, conversationId },
      { cookie },
    );
    const [sent] = transcript.body.result.data.conversation.messages;
    expect(sent.attachments).toEqual([
      { id: file.id, name: "drill-manual.pdf", format: "pdf", sizeBytes: file.sizeBytes },
    ]);
  });
});

describe("the MCP conversation tool", { timeout: 120_000 }, () => {
  it("attaches an uploaded file by id and the reply cites it", async () => {
    const scenario = await portalScenario();
    const personal = scenario.tenant.personalKey.secret;
    const uploaded = await uploadFile(personal, { name: "drill-manual.txt", bytes: PHRASE });
    expect(uploaded.status).toBe(201);
    const client = await mcp.connect(personal);
    const result = await client.callTool({
      name: "converse_with_app",
      arguments: { appId: scenario.appId, message: QUESTION, fileIds: [uploaded.body.file.id] },
    });
    expect(structured(result).reply).toContain("warranty of seven years from the date of purchase [1].");
    const stored = await getDb().attachment.findUniqueOrThrow({ where: { id: uploaded.body.file.id } });
    expect(stored.conversationId).toBe(structured(result).conversation_id);
  });
});

describe("who reads a file", { timeout: 120_000 }, () => {
  it("its owner and the organization's admins; another end user, member or organization gets not_found", async () => {
    const scenario = await portalScenario();
    const uploaded = await uploadFile(
      scenario.key,
      { name: "drill-manual.pdf", bytes: pdf(PHRASE) },
      { endUserId: scenario.endUser.id },
    );
    expect(uploaded.status).toBe(201);
    const fileId = uploaded.body.file.id;
    expect(uploaded.body.file).toMatchObject({ name: "drill-manual.pdf", format: "pdf", conversationId: null });

    expect((await send(scenario.key, "GET", `/files/${fileId}`)).status).toBe(200);
    // The same upload again under one Idempotency-Key answers the first file, stores no second.
    const keyed = async () =>
      fetch(`${server.base}/api/v1/files`, {
        method: "POST",
        headers: { authorization: `Bearer ${scenario.key}`, "idempotency-key": `upload-${fileId}` },
        body: formOf({}, [{ name: "note.txt", bytes: "A note." }]),
      });
    const first = await keyed();
    const again = await keyed();
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(((await again.json()) as any).file.id).toBe(((await first.json()) as any).file.id);
    expect(await getDb().attachment.count({ where: { organizationId: scenario.tenant.organization.id } })).toBe(2);
    const operator = { kind: "operator" as const, organizationId: scenario.tenant.organization.id };
    const admin = await addPerson(operator, "admin");
    const member = await addPerson(operator, "member");
    const adminKey = await issueKey(operator, { kind: "personal", memberId: admin.member.id });
    const memberKey = await issueKey(operator, { kind: "personal", memberId: member.member.id });
    expect((await send(adminKey.secret, "GET", `/files/${fileId}`)).status).toBe(200);
    const notTheirs = await send(memberKey.secret, "GET", `/files/${fileId}`);
    expect(notTheirs.status).toBe(404);
    expect(notTheirs.body.error.code).toBe("not_found");

    const other = await newOrganization();
    const foreign = await send(other.orgKey.secret, "GET", `/files/${fileId}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe("not_found");

    // The end user reads it in the portal; another end user of the organization does not, nor uses it.
    const ownCookie = await signIn(scenario, scenario.endUser.email, clientAddress());
    const own = await portalCall("query", "files.get", { portal: scenario.portal.slug, fileId }, { cookie: ownCookie });
    expect(own.status).toBe(200);
    const bob = await api("POST", "/end-users", {
      key: scenario.key,
      body: {
        email: `bob-${fileId.slice(0, 8)}@customer.example`,
        tierPlanIds: [scenario.plan.id],
        grants: [{ targetKind: "app", targetId: scenario.appId }],
      },
    });
    expect(bob.status).toBe(201);
    const bobCookie = await signIn(scenario, bob.body.endUser.email, clientAddress());
    const read = await portalCall(
      "query",
      "files.get",
      { portal: scenario.portal.slug, fileId },
      { cookie: bobCookie },
    );
    expect(errorCode(read)).toBe("not_found");
    const before = await writtenFor(scenario);
    const used = await send(scenario.key, "POST", `/apps/${scenario.appId}/conversation`, {
      message: QUESTION,
      fileIds: [fileId],
      endUserId: bob.body.endUser.id,
    });
    expect(used.status).toBe(404);
    expect(used.body.error.code).toBe("not_found");
    expect(await writtenFor(scenario)).toEqual(before);
  });
});

describe("downloading a file", { timeout: 120_000 }, () => {
  it("answers its bytes to its owner and the organization's admins, as a download; anyone else gets not_found", async () => {
    const tenant = await newOrganization();
    const operator = { kind: "operator" as const, organizationId: tenant.organization.id };
    const owner = await issueKey(operator, {
      kind: "personal",
      memberId: (await addPerson(operator, "member")).member.id,
    });
    const other = await issueKey(operator, {
      kind: "personal",
      memberId: (await addPerson(operator, "member")).member.id,
    });
    const admin = await issueKey(operator, {
      kind: "personal",
      memberId: (await addPerson(operator, "admin")).member.id,
    });
    const name = 'Résumé "v2".md';
    const text = "# Falcon\n\nThe Falcon drill weighs 1.8 kg.\n";
    const uploaded = await uploadFile(owner.secret, { name, bytes: text });
    expect(uploaded.status).toBe(201);
    const path = `/api/v1/files/${uploaded.body.file.id}/content`;
    const download = (key: string, method = "GET") =>
      fetch(`${server.base}${path}`, { method, headers: { authorization: `Bearer ${key}` } });

    for (const key of [owner.secret, admin.secret, tenant.orgKey.secret]) {
      const response = await download(key);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/markdown");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("content-disposition")).toBe(
        `attachment; filename="R_sum_ _v2_.md"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%22v2%22.md`,
      );
      expect(response.headers.get("cache-control")).toBe("private, no-store");
      expect(await response.text()).toBe(text);
    }
    const head = await download(owner.secret, "HEAD");
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(Buffer.byteLength(text)));

    // An image comes back byte for byte, with its own type.
    const image = await uploadFile(owner.secret, { name: "photo.png", bytes: png() });
    const picture = await fetch(`${server.base}/api/v1/files/${image.body.file.id}/content`, {
      headers: { authorization: `Bearer ${owner.secret}` },
    });
    expect(picture.headers.get("content-type")).toBe("image/png");
    expect(new Uint8Array(await picture.arrayBuffer())).toEqual(png());

    const foreign = await newOrganization();
    for (const key of [other.secret, foreign.orgKey.secret]) {
      const refused = await download(key);
      expect(refused.status).toBe(404);
      expect(refused.headers.get("content-type")).toMatch(/^application\/json/);
      expect(((await refused.json()) as any).error.code).toBe("not_found");
    }
    const unknown = await fetch(`${server.base}/api/v1/files/${crypto.randomUUID()}/content`, {
      headers: { authorization: `Bearer ${owner.secret}` },
    });
    expect(unknown.status).toBe(404);
  });
});

describe("downloading a file from the chats", { timeout: 120_000 }, () => {
  const fetchAt = (path: string, headers: Record<string, string>) =>
    fetch(`${server.base}${path}`, { headers: { "sec-fetch-site": "same-origin", ...headers } });

  it("the portal: the end user who sent it; another end user of the organization gets not_found", async () => {
    const scenario = await portalScenario();
    const slug = scenario.portal.slug;
    const alice = await signIn(scenario, scenario.endUser.email, clientAddress());
    const upload = await fetch(`${server.base}/api/portal/${slug}/files`, {
      method: "POST",
      headers: { cookie: alice, origin: server.base },
      body: formOf({}, [{ name: "notes.txt", bytes: PHRASE }]),
    });
    expect(upload.status).toBe(201);
    const { file } = (await upload.json()) as any;
    const path = `/api/portal/${slug}/files/${file.id}/content`;

    const own = await fetchAt(path, { cookie: alice });
    expect(own.status).toBe(200);
    expect(own.headers.get("content-type")).toBe("text/plain");
    expect(own.headers.get("content-disposition")).toBe(`attachment; filename="notes.txt"; filename*=UTF-8''notes.txt`);
    expect(own.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await own.text()).toBe(PHRASE);

    const bob = await api("POST", "/end-users", {
      key: scenario.key,
      body: {
        email: `bob-${file.id.slice(0, 8)}@customer.example`,
        tierPlanIds: [scenario.plan.id],
        grants: [{ targetKind: "app", targetId: scenario.appId }],
      },
    });
    const bobCookie = await signIn(scenario, bob.body.endUser.email, clientAddress());
    const refused = await fetchAt(path, { cookie: bobCookie });
    expect(refused.status).toBe(404);
    expect(((await refused.json()) as any).error.code).toBe("not_found");

    // Signed out, or sent from another site: refused before the file is read.
    const signedOut = await fetchAt(path, {});
    expect(signedOut.status).toBe(401);
    const crossSite = await fetchAt(path, { cookie: alice, "sec-fetch-site": "cross-site" });
    expect(crossSite.status).toBe(403);
    expect(((await crossSite.json()) as any).error.code).toBe("cross_origin_request");
  });

  it("the console: the member who sent it and the organization's admins; another member gets not_found", async () => {
    const tenant = await newOrganization();
    const operator = { kind: "operator" as const, organizationId: tenant.organization.id };
    const [owner, other, admin] = await Promise.all([
      addPerson(operator, "member"),
      addPerson(operator, "member"),
      addPerson(operator, "admin"),
    ]);
    const ownerCookie = await signInCookie(owner.email, owner.password);
    const upload = await fetch(`${server.base}/api/console/files`, {
      method: "POST",
      headers: { cookie: ownerCookie, origin: server.base },
      body: formOf({}, [{ name: "notes.md", bytes: "# Notes\n\nFalcon." }]),
    });
    expect(upload.status).toBe(201);
    const { file } = (await upload.json()) as any;
    const path = `/api/console/files/${file.id}/content`;

    for (const cookie of [ownerCookie, await signInCookie(admin.email, admin.password)]) {
      const response = await fetchAt(path, { cookie });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/markdown");
      expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="notes\.md"/);
      expect(await response.text()).toBe("# Notes\n\nFalcon.");
    }
    const refused = await fetchAt(path, { cookie: await signInCookie(other.email, other.password) });
    expect(refused.status).toBe(404);
    expect(((await refused.json()) as any).error.code).toBe("not_found");
  });
});

describe("refusals write nothing", { timeout: 120_000 }, () => {
  it("refuses over-bound and unsupported files with a clear 4xx and writes nothing", async () => {
    const scenario = await portalScenario();
    const before = await writtenFor(scenario);
    const path = `/apps/${scenario.appId}/conversation`;
    const fields = { message: QUESTION };

    const six = await send(
      scenario.key,
      "POST",
      path,
      formOf(
        fields,
        Array.from({ length: 6 }, (_, i) => ({ name: `note-${i}.txt`, bytes: `Note ${i}.` })),
      ),
    );
    expect(six.status).toBe(400);
    expect(six.body.error.code).toBe("invalid_request");
    expect(six.body.error.message).toMatch(/At most 5 files/);

    const big = new Uint8Array(5 * 1024 * 1024).fill(0x61);
    const overRequest = await send(scenario.key, "POST", path, formOf(fields, [{ name: "big.txt", bytes: big }]));
    expect(overRequest.status).toBe(413);
    expect(overRequest.body.error.code).toBe("invalid_request");
    expect(overRequest.body.error.message).toMatch(/POST \/files/);

    const huge = new Uint8Array(10 * 1024 * 1024 + 1).fill(0x61);
    const overFile = await uploadFile(scenario.key, { name: "huge.txt", bytes: huge });
    expect(overFile.status).toBe(413);
    expect(overFile.body.error.code).toBe("invalid_request");

    // An executable named like a PDF: typed by content, refused.
    const renamed = new Uint8Array([0x4d, 0x5a, 0x90, 0x00, 0x03, 0x00, 0x00, 0x00, 0x04]);
    const refused = await uploadFile(scenario.key, { name: "report.pdf", bytes: renamed });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe("unsupported_attachment");
    const inTurn = await send(scenario.key, "POST", path, formOf(fields, [{ name: "report.pdf", bytes: renamed }]));
    expect(inTurn.status).toBe(422);
    expect(inTurn.body.error.code).toBe("unsupported_attachment");

    const tooManyIds = await send(scenario.key, "POST", path, {
      ...fields,
      fileIds: Array.from({ length: 6 }, () => crypto.randomUUID()),
    });
    expect(tooManyIds.status).toBe(400);
    expect(tooManyIds.body.error.code).toBe("invalid_request");

    expect(await writtenFor(scenario)).toEqual(before);
  });

  it("refuses an image before anything runs when none of the app's models reads images", async () => {
    const scenario = await portalScenario();
    const before = await writtenFor(scenario);
    const turn = await send(
      scenario.key,
      "POST",
      `/apps/${scenario.appId}/conversation`,
      formOf({ message: "What is in this picture?" }, [{ name: "photo.png", bytes: png() }]),
    );
    expect(turn.status).toBe(422);
    expect(turn.body.error.code).toBe("unsupported_attachment");
    expect(turn.body.error.message).toMatch(/photo\.png is an image/);
    expect(await writtenFor(scenario)).toEqual(before);

    const uploaded = await uploadFile(scenario.key, { name: "photo.png", bytes: png() });
    expect(uploaded.status).toBe(201);
    expect(uploaded.body.file).toMatchObject({ format: "png", contentType: "image/png" });
    const byId = await send(scenario.key, "POST", `/apps/${scenario.appId}/conversation`, {
      message: "What is in this picture?",
      fileIds: [uploaded.body.file.id],
    });
    expect(byId.status).toBe(422);
    expect(byId.body.error.code).toBe("unsupported_attachment");
    const after = await writtenFor(scenario);
    expect({ ...after, attachments: after.attachments - 1 }).toEqual(before);
  });
});

describe("a turn run again keeps its files", { timeout: 120_000 }, () => {
  /** The files stored for the organization, with the message each is linked to (null: none). */
  async function storedFiles(organizationId: string) {
    return getDb().attachment.findMany({
      where: { organizationId },
      select: { id: true, conversationId: true, messageId: true },
    });
  }

  async function visibleUserMessage(conversationId: string) {
    return getDb().conversationMessage.findFirstOrThrow({
      where: { conversationId, role: "user", supersededAt: null },
    });
  }

  it("continued after an approval, the run still reads the attachment and the message keeps it", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const flow = await create(key, "flows", {
      name: "Check",
      inputs: [{ key: "question", type: "text", required: true }],
      nodes: [
        { id: "start", type: "trigger_start" },
        { id: "check", type: "approval", data: { title: "Check", message: "Answer {{inputs.question}}?" } },
        { id: "answer", type: "output", data: { value: "Approved." } },
      ],
    });
    await publish(key, "flows", flow.id);
    const reader = await create(key, "agents", { name: "Reader", description: "Answers from the attached files" });
    await publish(key, "agents", reader.id);
    const app = await create(key, "apps", {
      name: "Checked answers",
      members: [
        { id: flow.id, kind: "flow" },
        { id: reader.id, kind: "agent" },
      ],
      orchestrationMode: "sequential",
      api: { conversationEnabled: true },
    });
    await publish(key, "apps", app.id);
    const uploaded = await uploadFile(key, { name: "drill-manual.txt", bytes: PHRASE });
    expect(uploaded.status).toBe(201);
    const fileId = uploaded.body.file.id as string;

    const started = await send(key, "POST", `/apps/${app.id}/conversation`, { message: QUESTION, fileIds: [fileId] });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const conversationId = started.body.conversation_id as string;
    // While it waits, the file is the conversation's: no other conversation takes it.
    const elsewhere = await send(key, "POST", `/apps/${app.id}/conversation`, { message: QUESTION, fileIds: [fileId] });
    expect(elsewhere.status).toBe(404);
    const approved = await send(tenant.personalKey.secret, "POST", `/executions/${started.body.executionId}/approval`, {
      decision: "approve",
    });
    expect(approved.status).toBe(200);
    await runApprovalsOnce(getDb());

    const execution = await getDb().execution.findUniqueOrThrow({ where: { id: started.body.executionId } });
    expect(execution.status).toBe("succeeded");
    expect(execution.output).toContain("warranty of seven years from the date of purchase");
    const [answer] = await getDb().conversationMessage.findMany({
      where: { conversationId, role: "assistant" },
    });
    expect(answer!.citations).toContainEqual(expect.objectContaining({ kind: "attachment", id: fileId }));
    const sent = await visibleUserMessage(conversationId);
    expect(await storedFiles(tenant.organization.id)).toEqual([{ id: fileId, conversationId, messageId: sent.id }]);

    // And it goes with the conversation's retention.
    const db = getDb();
    await db.organization.update({ where: { id: tenant.organization.id }, data: { conversationRetentionDays: 30 } });
    await db.conversation.update({
      where: { id: conversationId },
      data: { updatedAt: new Date(Date.now() - 31 * 86_400_000) },
    });
    await sweepExpiredConversations(db);
    expect(await storedFiles(tenant.organization.id)).toEqual([]);
  });

  it("regenerated, or edited and resent, the turn still reads the attachment and the new message keeps it", async () => {
    const scenario = await portalScenario();
    const onBehalf = { endUserId: scenario.endUser.id, portalId: scenario.portal.id };
    const uploaded = await uploadFile(
      scenario.key,
      { name: "drill-manual.txt", bytes: PHRASE },
      { endUserId: scenario.endUser.id },
    );
    expect(uploaded.status).toBe(201);
    const fileId = uploaded.body.file.id as string;
    const path = `/apps/${scenario.appId}/conversation`;
    const first = await send(scenario.key, "POST", path, { message: QUESTION, fileIds: [fileId], ...onBehalf });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const conversationId = first.body.conversation_id as string;

    const again = await send(scenario.key, "POST", path, {
      conversation_id: conversationId,
      regenerate: true,
      ...onBehalf,
    });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.reply).toContain("warranty of seven years from the date of purchase [1].");
    expect(again.body.citations[0]).toMatchObject({ kind: "attachment", id: fileId });
    const regenerated = await visibleUserMessage(conversationId);
    expect(await storedFiles(scenario.tenant.organization.id)).toEqual([
      { id: fileId, conversationId, messageId: regenerated.id },
    ]);

    const edited = await send(scenario.key, "POST", path, {
      conversation_id: conversationId,
      regenerate: true,
      message: "What is the Falcon drill's warranty?",
      ...onBehalf,
    });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(edited.body.reply).toContain("seven years");
    expect(edited.body.citations[0]).toMatchObject({ kind: "attachment", id: fileId });
    const resent = await visibleUserMessage(conversationId);
    expect(resent.content).toBe("What is the Falcon drill's warranty?");
    expect(await storedFiles(scenario.tenant.organization.id)).toEqual([
      { id: fileId, conversationId, messageId: resent.id },
    ]);
    // The end user's erasure still takes it.
    const erased = await api("POST", `/end-users/${scenario.endUser.id}/erase`, { key: scenario.key });
    expect(erased.status).toBe(200);
    expect(await storedFiles(scenario.tenant.organization.id)).toEqual([]);
  });
});

describe("attachments follow the conversation", { timeout: 120_000 }, () => {
  async function attachedTurn(scenario: PortalScenario) {
    const turn = await send(
      scenario.key,
      "POST",
      `/apps/${scenario.appId}/conversation`,
      formOf({ message: QUESTION, endUserId: scenario.endUser.id, portalId: scenario.portal.id }, [
        { name: "drill-manual.pdf", bytes: pdf(PHRASE) },
      ]),
    );
    expect(turn.status).toBe(200);
    return turn.body.conversation_id as string;
  }

  it("is exported as metadata and erased with the end user, used or not", async () => {
    const scenario = await portalScenario();
    await attachedTurn(scenario);
    const unused = await uploadFile(
      scenario.key,
      { name: "later.txt", bytes: "For later." },
      { endUserId: scenario.endUser.id },
    );
    expect(unused.status).toBe(201);
    const exported = await api("GET", `/end-users/${scenario.endUser.id}/export`, { key: scenario.key });
    expect(exported.status).toBe(200);
    expect(exported.body.attachments.map((file: { name: string }) => file.name)).toEqual([
      "drill-manual.pdf",
      "later.txt",
    ]);
    const erased = await api("POST", `/end-users/${scenario.endUser.id}/erase`, { key: scenario.key });
    expect(erased.status).toBe(200);
    expect(await getDb().attachment.count({ where: { organizationId: scenario.tenant.organization.id } })).toBe(0);
    expect((await send(scenario.key, "GET", `/files/${unused.body.file.id}`)).status).toBe(404);
  });

  it("goes with the conversation's retention sweep", async () => {
    const scenario = await portalScenario();
    const conversationId = await attachedTurn(scenario);
    const unused = await uploadFile(scenario.key, { name: "later.txt", bytes: "For later." });
    const db = getDb();
    await db.organization.update({
      where: { id: scenario.tenant.organization.id },
      data: { conversationRetentionDays: 30 },
    });
    const old = new Date(Date.now() - 31 * 86_400_000);
    await db.conversation.update({ where: { id: conversationId }, data: { updatedAt: old } });
    await db.attachment.update({ where: { id: unused.body.file.id }, data: { createdAt: old } });
    const swept = await sweepConversationsWhenDue(db, new Date(Date.now() + 3_000 * 86_400_000));
    expect(swept).toMatchObject({ conversations: 1, attachments: 1 });
    expect(await db.attachment.count({ where: { organizationId: scenario.tenant.organization.id } })).toBe(0);
  });
});
