import assert from "node:assert/strict";
import {test} from "node:test";
import {EngineError} from "../../../src/engine/EngineError.js";
import {UpstreamEngine} from "../../../src/engine/upstream/UpstreamEngine.js";
import {chunk, scriptedUpstream, sseHead} from "../../helpers/scriptedUpstream.js";

/**
 * An upstream listing several models (vLLM serving two, llama.cpp's router): each keeps the context the upstream reports
 * for it, in what a routed engine lists and in the engine's own check of a clearly oversized input.
 */
test("each model an upstream lists has its own context: listed, and in the overflow check", async () => {
    const upstream = await scriptedUpstream(() => (_req, res) => {
        sseHead(res);
        res.end(`${chunk({content: "ok"}, "stop")}data: [DONE]\n\n`);
    }, [{id: "coder", max_model_len: 4096}, {id: "chat", max_model_len: 131_072}, {id: "plain"}]);
    const engine = new UpstreamEngine({urls: [upstream.url], timeoutSeconds: 5, healthIntervalMs: 60_000});
    try {
        assert.equal(engine.servedModelContext("chat"), null, "not connected yet");
        await engine.load("");
        assert.equal(engine.model?.contextSize, 4096);
        assert.deepEqual(["coder", "chat", "plain"].map((name) => engine.servedModelContext(name)), [4096, 131_072, 4096],
            "a model the upstream tells no context for takes the connected one's");

        // ~12,500 estimated tokens: a clear overflow of coder's 4,096, well within chat's 131,072.
        const turns = [{role: "user" as const, text: "word ".repeat(10_000)}];
        await assert.rejects(engine.generate({turns, model: "coder"}),
            (error: unknown) => error instanceof EngineError && error.kind === "context_overflow" && /4096/.test(error.message));
        const result = await engine.generate({turns, model: "chat"});
        assert.equal(result.text, "ok");
        assert.equal(upstream.requests.at(-1).model, "chat");
    } finally {
        await engine.dispose();
        await upstream.close();
    }
});

test("the operator's context size (--context-size with --engine upstream) stands for every model", async () => {
    const listed = [{id: "coder", max_model_len: 4096}, {id: "chat", max_model_len: 131_072}];
    const upstream = await scriptedUpstream(() => (_req, res) => res.end(), listed);
    const engine = new UpstreamEngine({urls: [upstream.url], timeoutSeconds: 5, healthIntervalMs: 60_000, contextSize: 8192});
    try {
        await engine.load("");
        assert.deepEqual([engine.servedModelContext("coder"), engine.servedModelContext("chat")], [8192, 8192]);
    } finally {
        await engine.dispose();
        await upstream.close();
    }
});
