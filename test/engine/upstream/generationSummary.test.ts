import assert from "node:assert/strict";
import {describe, it} from "node:test";
import type {GenerationSummary} from "../../../src/engine/types.js";
import {UpstreamEngine} from "../../../src/engine/upstream/UpstreamEngine.js";
import {chunk, scriptedUpstream, sseHead} from "../../helpers/scriptedUpstream.js";

describe("upstream engine: generation summaries", () => {
    it("carry the model the request named (the editor's timings and status bar say which model answered)", async () => {
        const upstream = await scriptedUpstream(() => (_req, res) => {
            sseHead(res);
            res.end(`${chunk({content: "ok"}, "stop")}data: [DONE]\n\n`);
        });
        const engine = new UpstreamEngine({urls: [upstream.url], timeoutSeconds: 5, healthIntervalMs: 60_000});
        try {
            await engine.load("");
            const heard: GenerationSummary[] = [];
            engine.onGeneration((summary) => heard.push(summary));
            await engine.generate({turns: [{role: "user", text: "x"}], model: "scripted"});
            await engine.generate({turns: [{role: "user", text: "x"}]});
            assert.deepEqual(heard.map((summary) => summary.model), ["scripted", undefined], "none named: the engine's one model");
            assert.equal(heard[0]!.text, "ok");
        } finally {
            await engine.dispose();
            await upstream.close();
        }
    });
});
