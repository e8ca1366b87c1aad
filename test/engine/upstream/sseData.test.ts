import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {sseData} from "../../../src/engine/upstream/sseData.js";

async function collect(pieces: string[]) {
    async function* body() {
        for (const piece of pieces)
            yield new TextEncoder().encode(piece);
    }
    const out = [];
    for await (const event of sseData(body()))
        out.push(event);
    return out;
}

describe("SSE data payloads", () => {
    it("splits events across reads, CRLF split between reads, comments, multi-line data and a last event without a blank line", async () => {
        assert.deepEqual(await collect([
            ": keep-alive\n\ndata: {\"a\"", ":1}\r", "\n\r\ndata: x\ndata: y\n\nevent: e\nerror: {\"m\":1}\n\ndata: [DONE]"
        ]), [{data: "{\"a\":1}"}, {data: "x\ny"}, {error: "{\"m\":1}"}, {data: "[DONE]"}]);
    });

    it("decodes a UTF-8 character split between reads", async () => {
        const bytes = new TextEncoder().encode("data: é\n\n");
        async function* body() {
            yield bytes.slice(0, 7);
            yield bytes.slice(7);
        }
        const out = [];
        for await (const event of sseData(body()))
            out.push(event);
        assert.deepEqual(out, [{data: "é"}]);
    });
});
