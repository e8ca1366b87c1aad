import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {SseDataParser} from "../../../src/engine/upstream/sseData.js";

/** The events of a body read in these pieces, as the upstream stream reader feeds the parser. */
function parse(reads: Uint8Array[]) {
    const parser = new SseDataParser();
    return [...reads.flatMap((read) => parser.push(read)), ...parser.end()];
}

const collect = (pieces: string[]) => parse(pieces.map((piece) => new TextEncoder().encode(piece)));

describe("SSE data payloads", () => {
    it("splits events across reads, CRLF split between reads, comments, multi-line data and a last event without a blank line", () => {
        assert.deepEqual(collect([
            ": keep-alive\n\ndata: {\"a\"", ":1}\r", "\n\r\ndata: x\ndata: y\n\nevent: e\nerror: {\"m\":1}\n\ndata: [DONE]"
        ]), [{data: "{\"a\":1}"}, {data: "x\ny"}, {error: "{\"m\":1}"}, {data: "[DONE]"}]);
    });

    it("decodes a UTF-8 character split between reads", () => {
        const bytes = new TextEncoder().encode("data: é\n\n");
        assert.deepEqual(parse([bytes.slice(0, 7), bytes.slice(7)]), [{data: "é"}]);
    });
});
