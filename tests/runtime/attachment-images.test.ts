// An image attached to a turn goes to the app's provider model as an image part (the contract's
// "Attachments"); the built-in model reads none (tests/runtime/attachments.test.ts refuses it there).
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeOpenAI, type FakeOpenAI } from "../fake-openai";
import { create, publish } from "../builder-helpers";
import { newOrganization, restHandler, toApiResponse } from "../helpers";
import { converse } from "../runtime-helpers";

let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI(() => "A green square.");
  process.env.MODEL_PROVIDER_BASE_URL = fake.baseURL;
  process.env.MODEL_PROVIDER_MODELS = "gpt-test";
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

describe("an image attached to a turn", () => {
  it("reaches a provider model as an image part", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const agent = await create(key, "agents", { name: "Looker", description: "Describes pictures", model: "gpt-test" });
    await publish(key, "agents", agent.id);
    const app = await create(key, "apps", { name: "Pictures", members: [{ id: agent.id, kind: "agent" }] });
    await publish(key, "apps", app.id);
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

    const turn = await converse(key, app.id, { message: "What is in this picture?", fileIds: [uploaded.body.file.id] });
    expect(turn.status, turn.text).toBe(200);
    expect(turn.body.reply).toBe("A green square.");
    const sent = fake.requests.at(-1)!.messages.at(-1)!.content as unknown;
    expect(sent).toEqual([
      { type: "text", text: "What is in this picture?" },
      { type: "image_url", image_url: { url: expect.stringMatching(/^data:image\/png;base64,iVBORw0KGgo/) } },
    ]);
  });
});
