import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {parseKeepAlive} from "../../src/responses/keepAlive.js";
import {parseCreateRequest} from "../../src/responses/createRequest.js";
import {parseChatRequest} from "../../src/protocols/chat/chatRequest.js";
import {parseMessagesRequest} from "../../src/protocols/messages/messagesRequest.js";
import {refusal} from "../helpers/refusal.js";

describe("parseKeepAlive (Ollama's keep_alive)", () => {
    it("absent or null: null, the operator's default", () => {
        assert.equal(parseKeepAlive(undefined), null);
        assert.equal(parseKeepAlive(null), null);
    });

    it("a number is seconds; negative keeps the model loaded (Infinity); 0 unloads it after", () => {
        assert.equal(parseKeepAlive(30), 30_000);
        assert.equal(parseKeepAlive(1.5), 1500);
        assert.equal(parseKeepAlive(0), 0);
        assert.equal(parseKeepAlive(-0), 0);
        assert.equal(parseKeepAlive(-1), Infinity);
    });

    it("a string is a Go duration or a plain number of seconds", () => {
        const cases: [string, number][] = [
            ["30s", 30_000], ["5m", 300_000], ["1h", 3_600_000], ["1h30m", 5_400_000], ["1.5s", 1500], [".5m", 30_000],
            ["250ms", 250], ["2h45m10s", 9_910_000], ["+10s", 10_000], ["300", 300_000], ["0", 0], ["0s", 0], ["2.5", 2500]
        ];
        for (const [text, ms] of cases)
            assert.equal(parseKeepAlive(text), ms, text);
        assert.equal(parseKeepAlive("-1"), Infinity);
        assert.equal(parseKeepAlive("-1m"), Infinity);
        assert.equal(parseKeepAlive("-0s"), 0);
    });

    it("anything else is a 400 naming keep_alive", () => {
        for (const text of ["", "soon", "5 m", "5M", "m", "1d", "1h 30m", "1.2.3s", "--1s", "5s-"]) {
            const error = refusal(() => parseKeepAlive(text));
            assert.equal(error.status, 400, text);
            assert.equal(error.param, "keep_alive");
            assert.equal(error.code, "invalid_value");
        }
    });

    it("reaches the create request's params, and the schema refuses other types", () => {
        assert.equal(parseCreateRequest({input: "Hi", keep_alive: "2s"}).keepAliveMs, 2000);
        assert.equal(parseCreateRequest({input: "Hi"}).keepAliveMs, null);
        assert.equal(refusal(() => parseCreateRequest({input: "Hi", keep_alive: "later"})).param, "keep_alive");
        const wrongType = refusal(() => parseCreateRequest({input: "Hi", keep_alive: true}));
        assert.equal(wrongType.status, 400);
        assert.equal(wrongType.param, "keep_alive");
    });

    it("Chat Completions and Messages carry it to the create body; their schemas refuse other types", () => {
        const chat = {model: "m", messages: [{role: "user", content: "Hi"}]};
        const messages = {model: "m", max_tokens: 8, messages: [{role: "user", content: "Hi"}]};
        assert.equal(parseChatRequest({...chat, keep_alive: "5m"}).responsesBody.keep_alive, "5m");
        assert.equal(parseMessagesRequest({...messages, keep_alive: -1}).responsesBody.keep_alive, -1);
        assert.equal("keep_alive" in parseMessagesRequest(messages).responsesBody, false);
        for (const parse of [() => parseChatRequest({...chat, keep_alive: []}), () => parseMessagesRequest({...messages, keep_alive: {}})])
            assert.equal(refusal(parse).param, "keep_alive");
    });
});
