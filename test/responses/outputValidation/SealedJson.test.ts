import assert from "node:assert/strict";
import {createHmac} from "node:crypto";
import {describe, it} from "node:test";
import {CompactionCodec} from "../../../src/responses/compaction/compaction.js";
import {ReasoningTokens} from "../../../src/responses/reasoning/ReasoningTokens.js";
import {SealedJson} from "../../../src/responses/outputValidation/SealedJson.js";

/**
 * Tokens sealed by the two codecs this one replaced (ReasoningTokens and CompactionCodec before commit "one
 * sealed-JSON codec"), pinned byte for byte: a durable store and the clients of an older build hold such tokens
 * (reasoning `encrypted_content`, compaction items), and they must keep verifying with the same secret.
 */
const pinnedReasoning = {
    secret: "pinned-reasoning-secret",
    text: "Thinking: 2 + 2 = 4 — ünïcode",
    token: "lr1.eyJ0IjoiVGhpbmtpbmc6IDIgKyAyID0gNCDigJQgw7xuw69jb2RlIn0.6GAoUPrMlhvi0wO6m5lxJSmF5k9G6fe9Ghu10G22ySs"
};
const pinnedCompaction = {
    secret: "pinned-compaction-secret",
    payload: {
        v: 1 as const, summary: "The user asked about ünïcode.", replaced: ["msg_1", "msg_2"],
        retained: [
            {
                type: "message" as const, id: "msg_3", status: "completed" as const, role: "user" as const,
                content: [{type: "input_text" as const, text: "and then?"}]
            }
        ]
    },
    token: "eyJ2IjoxLCJzdW1tYXJ5IjoiVGhlIHVzZXIgYXNrZWQgYWJvdXQgw7xuw69jb2RlLiIsInJlcGxhY2VkIjpbIm1zZ18xIiwibXNnXzIiXSwicmV0YWlu"
        + "ZWQiOlt7InR5cGUiOiJtZXNzYWdlIiwiaWQiOiJtc2dfMyIsInN0YXR1cyI6ImNvbXBsZXRlZCIsInJvbGUiOiJ1c2VyIiwiY29udGVudCI6W3sidHlw"
        + "ZSI6ImlucHV0X3RleHQiLCJ0ZXh0IjoiYW5kIHRoZW4_In1dfV19.mZVgdwl_Ly-JCDOEAq4Wp2SyZ0XvULzbXeYxbUHHasE"
};

describe("sealed tokens of an older build", () => {
    it("a reasoning token verifies and reads back, and sealing the same text gives the same bytes", () => {
        const tokens = new ReasoningTokens(pinnedReasoning.secret);
        assert.equal(tokens.open(pinnedReasoning.token), pinnedReasoning.text);
        assert.equal(tokens.seal(pinnedReasoning.text), pinnedReasoning.token);
        assert.equal(new ReasoningTokens("another secret").open(pinnedReasoning.token), undefined);
    });

    it("a compaction token verifies and reads back, and sealing the same payload gives the same bytes", () => {
        const codec = new CompactionCodec(pinnedCompaction.secret);
        assert.deepEqual(codec.open(pinnedCompaction.token), pinnedCompaction.payload);
        assert.equal(codec.seal(pinnedCompaction.payload), pinnedCompaction.token);
        assert.equal(new CompactionCodec("another secret").open(pinnedCompaction.token), undefined);
    });

    it("one kind of token never verifies as the other, even under the same secret", () => {
        const secret = "shared";
        const reasoning = new ReasoningTokens(secret);
        const compaction = new CompactionCodec(secret);
        const reasoningToken = reasoning.seal("x");
        const compactionToken = compaction.seal(pinnedCompaction.payload);
        assert.equal(compaction.open(reasoningToken), undefined);
        assert.equal(compaction.open(reasoningToken.slice("lr1.".length)), undefined, "the MAC is domain-separated, not only the prefix");
        assert.equal(reasoning.open(`lr1.${compactionToken}`), undefined);
    });
});

describe("SealedJson", () => {
    const format = {prefix: "t1.", macContext: "test\0"};

    it("round-trips any JSON value and refuses altered, truncated, foreign or malformed tokens", () => {
        const sealed = new SealedJson("key", format);
        for (const value of [{a: [1, "two", null]}, "text", 42, null, [true]])
            assert.deepEqual(sealed.open(sealed.seal(value)), value);
        const token = sealed.seal({a: 1});
        const [, body, mac] = token.split(".");
        const forged = Buffer.from(JSON.stringify({a: 2})).toString("base64url");
        assert.equal(sealed.open(`t1.${forged}.${mac}`), undefined, "another body under the same MAC");
        assert.equal(sealed.open(`t1.${body}.${mac!.slice(1)}`), undefined, "a shortened MAC");
        assert.equal(sealed.open(`t1.${body}.${mac}.x`), undefined, "a trailing part");
        assert.equal(sealed.open(`t2.${body}.${mac}`), undefined, "another prefix");
        assert.equal(sealed.open(`t1..${mac}`), undefined, "no body");
        assert.equal(sealed.open("t1.garbage"), undefined);
        assert.equal(new SealedJson("other key", format).open(token), undefined);
        assert.equal(new SealedJson("key", {...format, macContext: "other\0"}).open(token), undefined);
    });

    it("refuses a body that is not JSON even under a valid MAC", () => {
        const sealed = new SealedJson("key", format);
        const body = Buffer.from("{not json").toString("base64url");
        const mac = createHmac("sha256", Buffer.from("key")).update(format.macContext).update(body).digest("base64url");
        assert.equal(sealed.open(`t1.${body}.${mac}`), undefined);
        const json = Buffer.from("{}").toString("base64url");
        const jsonMac = createHmac("sha256", Buffer.from("key")).update(format.macContext).update(json).digest("base64url");
        assert.deepEqual(sealed.open(`t1.${json}.${jsonMac}`), {}, "the same MAC computed by hand verifies: the format is as documented");
    });

    it("makes a random key without a secret (tokens die with the instance)", () => {
        const token = new SealedJson(null, format).seal({a: 1});
        assert.equal(new SealedJson(null, format).open(token), undefined);
        assert.equal(new SealedJson("", format).open(token), undefined);
    });
});
