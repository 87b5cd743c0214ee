// An image attached to a turn goes to the app's provider model as an image part (the contract's
// "Attachments"); the built-in model reads none (tests/runtime/attachments.test.ts refuses it there).
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeOpenAI, type FakeOpenAI } from "../fake-openai";
import { api, newOrganization, restHandler, toApiResponse, type Tenant } from "../helpers";
import { converse, credits, oneAgentApp } from "../runtime-helpers";
import { getDb } from "@/server/db";
import { createModelProvider } from "@/server/services/org/model-providers";

let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI(() => "A green square.");
  process.env.MODEL_PROVIDER_BASE_URL = fake.baseURL;
  process.env.MODEL_PROVIDER_MODELS = "gpt-test,gpt-text";
  process.env.MODEL_PROVIDER_IMAGE_MODELS = "gpt-test";
  // The organization provider below is the loopback stand-in.
  process.env.ALLOW_PRIVATE_INTEGRATION_URLS = "true";
});

afterAll(() => fake.close());

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
      chunk("IDAT", zlib.deflateSync(Buffer.from([0, 0, 255, 0]))),
      chunk("IEND", Buffer.alloc(0)),
    ]),
  );
}

async function uploadPng(key: string): Promise<string> {
  const form = new FormData();
  form.append("file", new File([png() as BlobPart], "photo.bin"));
  const uploaded = await toApiResponse(
    await restHandler()(
      new Request("http://localhost/api/v1/files", {
        method: "POST",
        headers: { authorization: `Bearer ${key}` },
        body: form,
      }),
    ),
  );
  expect(uploaded.status).toBe(201);
  return uploaded.body.file.id;
}

function appOn(key: string, model: string): Promise<string> {
  return oneAgentApp(key, { name: "Looker", description: "Describes pictures", model }, { name: "Pictures" });
}

async function written(tenant: Tenant) {
  const organizationId = tenant.organization.id;
  return {
    executions: await getDb().execution.count({ where: { organizationId } }),
    conversations: await getDb().conversation.count({ where: { organizationId } }),
    credits: await credits(tenant),
  };
}

describe("which models read images", () => {
  it("an OpenAI-compatible model reads images only when its configuration says so; GET /models tells", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    await createModelProvider(getDb(), tenant.operator, {
      slug: "acme",
      kind: "openai-compatible",
      name: "Acme AI",
      baseUrl: fake.baseURL,
      models: [
        { id: "text-only", kind: "chat" },
        { id: "vision", kind: "chat", images: true },
      ],
    });
    await createModelProvider(getDb(), tenant.operator, {
      slug: "claude",
      kind: "anthropic",
      name: "Anthropic",
      models: [{ id: "claude-test", kind: "chat" }],
    });
    const listed = await api("GET", "/models", { key });
    expect(listed.status).toBe(200);
    const images = Object.fromEntries(
      listed.body.models.map((m: { id: string; acceptsImages: boolean }) => [m.id, m.acceptsImages]),
    );
    expect(images).toEqual({
      "atrium-offline": false,
      "gpt-test": true,
      "gpt-text": false,
      "acme/text-only": false,
      "acme/vision": true,
      "claude/claude-test": true,
    });

    for (const model of ["acme/text-only", "gpt-text", "atrium-offline"]) {
      const appId = await appOn(key, model);
      const fileId = await uploadPng(key);
      const before = await written(tenant);
      const refused = await converse(key, appId, { message: "What is in this picture?", fileIds: [fileId] });
      expect(refused.status, model).toBe(422);
      expect(refused.body.error.code).toBe("unsupported_attachment");
      expect(await written(tenant)).toEqual(before);
    }

    const appId = await appOn(key, "acme/vision");
    const turn = await converse(key, appId, { message: "What is in this picture?", fileIds: [await uploadPng(key)] });
    expect(turn.status, turn.text).toBe(200);
    expect(turn.body.reply).toBe("A green square.");
  });
});

describe("an image attached to a turn", () => {
  it("reaches a provider model as an image part", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const appId = await appOn(key, "gpt-test");
    const form = new FormData();
    form.append("file", new File([png() as BlobPart], "photo.bin"));
    const uploaded = await toApiResponse(
      await restHandler()(
        new Request("http://localhost/api/v1/files", {
          method: "POST",
          headers: { authorization: `Bearer ${key}` },
          body: form,
        }),
      ),
    );
    expect(uploaded.status).toBe(201);
    expect(uploaded.body.file).toMatchObject({ format: "png", contentType: "image/png" });

    const turn = await converse(key, appId, { message: "What is in this picture?", fileIds: [uploaded.body.file.id] });
    expect(turn.status, turn.text).toBe(200);
    expect(turn.body.reply).toBe("A green square.");
    const sent = fake.requests.at(-1)!.messages.at(-1)!.content as unknown;
    expect(sent).toEqual([
      { type: "text", text: "What is in this picture?" },
      { type: "image_url", image_url: { url: expect.stringMatching(/^data:image\/png;base64,iVBORw0KGgo/) } },
    ]);
  });
});
