import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import {UpstreamEngine} from "../../../src/engine/upstream/UpstreamEngine.js";
import {chunk, scriptedUpstream, sseHead} from "../../helpers/scriptedUpstream.js";

/**
 * Issue 41 item 5: an upstream's prompt cache is shared by every key routed to it. Routing by prefix across keys sent a
 * key's prompt to the server holding another key's same prefix, and the upstream's `cached_tokens` told it so. Now
 * routing is partitioned by the cache partition (the key, unless the cache is shared), and the upstream's cached
 * tokens are passed on only to a partition whose own earlier request went to that server.
 */
describe("upstream routing and cached tokens, partitioned by key (two scripted upstreams)", () => {
    type Upstream = Awaited<ReturnType<typeof scriptedUpstream>>;
    let upstreams: Upstream[];
    let engine: UpstreamEngine;
    // Each upstream claims a 10-token cache hit on every request, as llama-server does once it holds the prefix.
    const answer = () => (_req: unknown, res: Parameters<typeof sseHead>[0]) => {
        sseHead(res);
        res.write(chunk({content: "ok"}, "stop"));
        res.end(`data: ${JSON.stringify({choices: [], usage: {prompt_tokens: 12, completion_tokens: 1,
            prompt_tokens_details: {cached_tokens: 10}}})}\n\ndata: [DONE]\n\n`);
    };
    before(async () => {
        upstreams = [await scriptedUpstream(answer), await scriptedUpstream(answer)];
        engine = new UpstreamEngine({urls: upstreams.map((upstream) => upstream.url), timeoutSeconds: 5, healthIntervalMs: 60_000});
        await engine.load("");
    });
    after(async () => {
        await engine.dispose();
        await Promise.all(upstreams.map((upstream) => upstream.close()));
    });

    const turns = [{role: "system" as const, text: "You are a coding agent."}, {role: "user" as const, text: "List the files."}];
    const served = () => upstreams.map((upstream) => upstream.requests.length);
    /** Generates for `partition` and returns the cached tokens it was told and the upstream that served it. */
    const generate = async (partition: string) => {
        const before = served();
        const result = await engine.generate({turns, cachePartition: partition});
        return {cached: result.usage.cachedTokens, upstream: served().findIndex((count, index) => count > before[index]!)};
    };

    it("a key's first request on a server is told no cache hit; its next one there is", async () => {
        const first = await generate("key-a");
        assert.equal(first.cached, 0, "the hit may be another key's: not passed on");
        const second = await generate("key-a");
        assert.equal(second.upstream, first.upstream, "the key's prefix stays on its server");
        assert.equal(second.cached, 10);
    });

    it("another key with the same prefix is not told of the first key's cache", async () => {
        const other = await generate("key-b");
        assert.equal(other.cached, 0);
        assert.equal((await generate("key-b")).cached, 10, "its own history on that server counts");
    });

    it("with a shared cache partition (--shared-prompt-cache) every key shares routing and hits", async () => {
        await generate("shared");
        const again = await generate("shared");
        assert.equal(again.cached, 10);
    });
});
