import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {estimatePromptTokens} from "../../../src/engine/upstream/upstreamChatRequest.js";
import {UpstreamEngine} from "../../../src/engine/upstream/UpstreamEngine.js";
import {scriptedUpstream} from "../../helpers/scriptedUpstream.js";

/** Counting through the upstream: vLLM/SGLang's `/tokenize` with messages, else llama-server's template + tokenize, else an estimate. */
describe("upstream prompt token counts", () => {
    const turns = [{role: "user" as const, text: "count me"}];

    it("uses /tokenize with messages (vLLM, SGLang) and remembers that this upstream speaks it", async () => {
        const upstream = await scriptedUpstream(() => (req, res, body) => {
            res.setHeader("content-type", "application/json");
            res.end(JSON.stringify(req.url === "/tokenize" && body.messages != null ? {count: 42, max_model_len: 4096} : {}));
        });
        const engine = new UpstreamEngine({urls: [upstream.url], healthIntervalMs: 60_000});
        try {
            await engine.load("");
            assert.equal(await engine.countPromptTokens(turns), 42);
            assert.equal(await engine.countPromptTokens(turns), 42);
            assert.deepEqual(upstream.requests.map((request) => Object.keys(request).sort().join(",")), [
                "add_generation_prompt,messages,model", "add_generation_prompt,messages,model"
            ], "no second probe once the style is known");
            assert.deepEqual(upstream.requests[0].messages, [{role: "user", content: "count me"}]);
        } finally {
            await engine.dispose();
            await upstream.close();
        }
    });

    it("falls back to llama-server's /apply-template + /tokenize, then to the estimate", async () => {
        const upstream = await scriptedUpstream(() => (req, res, body) => {
            res.setHeader("content-type", "application/json");
            if (req.url === "/apply-template")
                res.end(JSON.stringify({prompt: "<|im_start|>user\ncount me<|im_end|>\n"}));
            else if (req.url === "/tokenize" && typeof body.content === "string")
                res.end(JSON.stringify({tokens: [1, 2, 3, 4, 5, 6, 7]}));
            else {
                res.statusCode = 400;
                res.end(JSON.stringify({error: {message: "content required"}}));
            }
        });
        const engine = new UpstreamEngine({urls: [upstream.url], healthIntervalMs: 60_000});
        try {
            await engine.load("");
            assert.equal(await engine.countPromptTokens(turns), 7);
        } finally {
            await engine.dispose();
            await upstream.close();
        }

        const ollamaLike = await scriptedUpstream(() => (_req, res) => {
            res.statusCode = 404;
            res.end("404 page not found");
        });
        const fallback = new UpstreamEngine({urls: [ollamaLike.url], healthIntervalMs: 60_000});
        try {
            await fallback.load("");
            assert.equal(await fallback.countPromptTokens(turns), estimatePromptTokens(turns));
        } finally {
            await fallback.dispose();
            await ollamaLike.close();
        }
    });
});
