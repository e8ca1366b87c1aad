import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {
    allowedSplits, CompactionCodec, expandCompactions, isCompactionSummary, newCompactionItem, planCompaction
} from "../../../src/responses/compaction/compaction.js";
import {ApiError} from "../../../src/protocol/errors.js";
import type {Item} from "../../../src/protocol/wire.js";

const user = (id: string,
    text = id): Item => ({type: "message", id, status: "completed", role: "user", content: [{type: "input_text", text}]});
const assistant = (id: string, text = id): Item => ({
    type: "message", id, status: "completed", role: "assistant", content: [{type: "output_text", text, annotations: []}]
});
const system = (id: string): Item => ({
    type: "message", id, status: "completed", role: "system", content: [{type: "input_text", text: id}]
});
const call = (id: string,
    callId: string): Item => ({type: "function_call", id, call_id: callId, name: "f", arguments: "{}", status: "completed"});
const output = (id: string,
    callId: string): Item => ({type: "function_call_output", id, call_id: callId, output: "ok", status: "completed"});
const ids = (items: readonly Item[]) => items.map((item) => item.id);
/** One "token" per item: enough to test the split rules. */
const countItems = async (items: readonly Item[]) => items.length;

describe("compaction tokens", () => {
    it("round-trips a payload and refuses altered or foreign tokens", () => {
        const codec = new CompactionCodec("secret");
        const token = codec.seal({v: 1, summary: "s", replaced: ["a"], retained: [user("u")]});
        assert.match(token, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, "base64url JSON and a base64url MAC");
        assert.deepEqual(codec.open(token)?.replaced, ["a"]);
        const [body, mac] = token.split(".");
        const forged = Buffer.from(JSON.stringify({v: 1, summary: "evil", replaced: [], retained: []})).toString("base64url");
        assert.equal(codec.open(`${forged}.${mac}`), undefined);
        assert.equal(codec.open(`${body}.${mac!.slice(1)}x`), undefined);
        assert.equal(new CompactionCodec("other").open(token), undefined);
        assert.equal(codec.open("garbage"), undefined);
        assert.equal(JSON.parse(Buffer.from(body!, "base64url").toString()).summary, "s", "readable: integrity, not secrecy");
    });
});

describe("planCompaction", () => {
    it("splits only before a user message or after a complete tool group", () => {
        const items = [user("u1"), assistant("a1"), call("c1", "x"), output("o1", "x"), assistant("a2"), user("u2"), call("c2", "y")];
        assert.deepEqual(allowedSplits(items), [0, 4, 5], "not inside the open call of c2, not between a call and its output");
    });

    it("keeps system messages, the newest whole turns that fit, and always the latest user turn", async () => {
        const items = [system("s"), user("u1"), assistant("a1"), user("u2"), assistant("a2"), user("u3"), assistant("a3")];
        const plan = (await planCompaction(items, 4, countItems))!;
        assert.deepEqual(ids(plan.kept), ["s"]);
        assert.deepEqual(ids(plan.summarized), ["u1", "a1"]);
        assert.deepEqual(ids(plan.retained), ["u2", "a2", "u3", "a3"]);

        const tight = (await planCompaction(items, 1, countItems))!;
        assert.deepEqual(ids(tight.retained), ["u3", "a3"], "the latest turn is kept even beyond keep_tokens");

        assert.equal(await planCompaction([user("u1"), assistant("a1")], 10, countItems), null, "nothing older than the latest turn");
    });
});

describe("expandCompactions", () => {
    const codec = new CompactionCodec("k");
    it("puts the summary before the first retained item still present and drops replaced items", () => {
        const item = newCompactionItem(codec, {summary: "S", replaced: ["u1", "a1"], retained: [user("u2"), assistant("a2")]});
        const history = [system("s"), user("u1"), assistant("a1"), user("u2"), assistant("a2"), item, user("u3")];
        const expanded = expandCompactions(history, codec);
        assert.deepEqual(ids(expanded), ["s", `${item.id}_summary`, "u2", "a2", "u3"]);
        assert.ok(isCompactionSummary(expanded[1]!));
    });

    it("replays the retained items from the token when the history no longer holds them", () => {
        const item = newCompactionItem(codec, {summary: "S", replaced: ["u1"], retained: [user("u2")]});
        assert.deepEqual(ids(expandCompactions([item, user("u3")], codec)), [`${item.id}_summary`, "u2", "u3"]);
    });

    it("a later compaction replaces an earlier one", () => {
        const first = newCompactionItem(codec, {summary: "S1", replaced: ["u1"], retained: [user("u2")]});
        const second = newCompactionItem(codec, {summary: "S2", replaced: ["u2", first.id], retained: [user("u3")]});
        assert.deepEqual(ids(expandCompactions([first, user("u2"), second, user("u3")], codec)), [`${second.id}_summary`, "u3"]);
    });

    it("refuses a token it did not seal with 400 invalid_encrypted_content", () => {
        assert.throws(() => expandCompactions([{type: "compaction", id: "cmp_x", encrypted_content: "abc.def"}], codec),
            (error: ApiError) => error.status === 400 && error.code === "invalid_encrypted_content");
    });
});
