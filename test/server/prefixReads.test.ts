import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {Registry} from "prom-client";
import type {PrefixSource} from "../../src/engine/types.js";
import type {GenerationStats} from "../../src/responses/pipeline/GenerationRunner.js";
import {PrefixReads} from "../../src/server/prefixReads.js";

function stats(owner: string, cachedTokens: number, prefixSource?: PrefixSource): GenerationStats {
    return {
        protocol: "responses", model: "m", owner, inputTokens: cachedTokens + 10, cachedTokens, prefixSource, outputTokens: 1,
        timeToFirstTokenMs: 5, durationMs: 10, status: "completed"
    };
}

const counter = (text: string, name: string, source: string) =>
    Number(new RegExp(`^local_responses_${name}\\{source="${source}"\\} (\\d+)$`, "m").exec(text)?.[1] ?? NaN);

describe("PrefixReads", () => {
    it("counts requests and tokens by where the prefix came from, the server's and each key's own", async () => {
        const registry = new Registry();
        const reads = new PrefixReads(registry);
        const before = await registry.metrics();
        assert.equal(counter(before, "prefix_read_tokens_total", "disk"), 0, "every source is exported before its first read");

        reads.record(stats("alice", 900, "same_sequence"));
        reads.record(stats("alice", 800, "other_sequence"));
        reads.record(stats("bob", 700, "disk"));
        reads.record(stats("bob", 50, "same_sequence"));
        reads.record(stats("bob", 0));
        reads.record(stats("bob", 300));

        assert.deepEqual(reads.status(), {
            same_sequence: {requests: 2, tokens: 950}, other_sequence: {requests: 1, tokens: 800}, disk: {requests: 1, tokens: 700}
        });
        assert.deepEqual(reads.status("alice"), {
            same_sequence: {requests: 1, tokens: 900}, other_sequence: {requests: 1, tokens: 800}, disk: {requests: 0, tokens: 0}
        });
        assert.deepEqual(reads.status("carol").disk, {requests: 0, tokens: 0}, "a key with no generations reads zeros");

        const text = await registry.metrics();
        assert.equal(counter(text, "prefix_read_tokens_total", "same_sequence"), 950);
        assert.equal(counter(text, "prefix_reads_total", "disk"), 1);
        const alice = reads.ownLines("alice").join("\n");
        assert.equal(counter(alice, "prefix_read_tokens_total", "other_sequence"), 800);
        assert.equal(counter(alice, "prefix_read_tokens_total", "disk"), 0, "bob's read from disk is not alice's to see");
        assert.equal(counter(alice, "prefix_reads_total", "same_sequence"), 1);
    });

    it("hands out copies: a caller cannot change the totals", () => {
        const reads = new PrefixReads(new Registry());
        reads.record(stats("alice", 10, "disk"));
        reads.status().disk.tokens = 0;
        assert.equal(reads.status().disk.tokens, 10);
    });
});
