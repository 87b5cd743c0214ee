// The floor of a streamed turn's relay on this machine, for `npm run bench -- --streams`: a bare
// node:http server that does only what every relayed token must, with no database, run, charge or
// store. Each POST asks the stand-in provider (PROVIDER_URL) for a streamed reply, parses its
// server-sent events (eventsource-parser, as src/server/runtime/openai-stream.ts does), reads
// each chunk's JSON and writes it to the client as the `delta` event Atrium sends, then `done`.
// What Atrium's server spends a token beyond this is the cost of everything else it does.
import http from "node:http";
import { createParser } from "eventsource-parser";

const provider = new URL(process.env.PROVIDER_URL!);
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

const server = http.createServer((request, response) => {
  request.resume();
  request.on("end", () => {
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    let seq = 0;
    let reply = "";
    const send = (event: string, data: unknown) =>
      response.write(`id: ${++seq}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    const upstream = http.request(
      provider,
      { method: "POST", agent, headers: { "content-type": "application/json" } },
      (incoming) => {
        incoming.setEncoding("utf8");
        const parser = createParser({
          onEvent(event) {
            if (event.data === "[DONE]") return;
            const text = (JSON.parse(event.data) as { choices?: { delta?: { content?: string } }[] }).choices?.[0]
              ?.delta?.content;
            if (!text) return;
            reply += text;
            send("delta", { text });
          },
        });
        incoming.on("data", (text: string) => parser.feed(text));
        incoming.on("end", () => {
          send("done", { reply });
          response.end();
        });
      },
    );
    upstream.on("error", () => response.destroy());
    upstream.end(JSON.stringify({ model: "slow", stream: true, messages: [{ role: "user", content: "A story." }] }));
  });
});
server.keepAliveTimeout = 120_000;
server.listen(Number(process.env.PORT), "127.0.0.1", () => process.send?.("ready"));
