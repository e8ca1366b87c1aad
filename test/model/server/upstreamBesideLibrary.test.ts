import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import {defaultConfig} from "../../../src/host/config.js";
import {buildTimeoutMs, startLlamaServer, type LlamaServerProcess} from "../../helpers/llamaServer.js";
import {models} from "../../helpers/paths.js";
import {startTestServer, type TestServer} from "../../helpers/testServer.js";

type ModelObject = {id: string, owned_by: string, status: string, engine?: string, upstream_hosts?: string[], size_bytes?: number};

/**
 * One server with a local library model (stories260K-qwen, node-llama-cpp in process) and a real llama-server beside it
 * (stories260K under the name `upstream-stories`): `--upstream` with `--model`, routed by the request's `model`.
 */
describe("a model library beside an upstream (a real llama-server) on one endpoint", () => {
    let upstream: LlamaServerProcess;
    let server: TestServer;
    before(async () => {
        upstream = await startLlamaServer({model: models.chatml, slots: 2, extraArgs: ["--alias", "upstream-stories"]});
        const base = defaultConfig();
        server = await startTestServer({
            model: models.qwen, modelPath: models.qwen, library: {...base.library, withUpstream: true},
            upstream: {...base.upstream, urls: [`${upstream.url}/v1`], healthIntervalMs: 200, timeoutSeconds: 60}
        });
    }, {timeout: buildTimeoutMs});
    after(async () => {
        await server?.close();
        await upstream?.stop();
    });

    /** Requests the upstream has been sent so far, by this server's own count. */
    async function upstreamRequests(): Promise<number> {
        const status = await (await server.fetch("/v1/status")).json() as {engine: {upstreams: {requests: number}[]}};
        return status.engine.upstreams[0]!.requests;
    }

    it("GET /v1/models lists the local model and the upstream's, each marked as what it is", async () => {
        const {data} = await (await server.fetch("/v1/models")).json() as {data: ModelObject[]};
        assert.deepEqual(data.map((model) => model.id), ["stories260K-qwen", "upstream-stories"]);
        const [local, remote] = data as [ModelObject, ModelObject];
        assert.equal(local.owned_by, "local-responses");
        assert.equal(local.status, "loaded", "the first --model loads at start");
        assert.ok(local.size_bytes! > 1_000_000);
        assert.equal(local.engine, undefined);
        assert.equal(remote.owned_by, "upstream");
        assert.equal(remote.engine, "upstream");
        assert.equal(remote.status, "loaded");
        assert.deepEqual(remote.upstream_hosts, [`127.0.0.1:${upstream.port}`]);
        assert.equal(remote.size_bytes, undefined, "no file here");
        assert.ok(!("memory_estimate_bytes" in remote));
    });

    it("a request naming each model is answered by it (the local one in process, the upstream's by llama-server)", async () => {
        const before = await upstreamRequests();
        const local = await server.client.responses.create({model: "stories260K-qwen", input: "Once upon a time", max_output_tokens: 8});
        assert.equal(local.model, "stories260K-qwen");
        assert.ok(local.status === "completed" || local.status === "incomplete", local.status);
        assert.equal(await upstreamRequests(), before, "the local model answered without the upstream");

        const remote = await server.client.responses.create({model: "upstream-stories", input: "Once upon a time", max_output_tokens: 8});
        assert.equal(remote.model, "upstream-stories");
        assert.ok(remote.output_text.length > 0);
        assert.equal(await upstreamRequests(), before + 1);

        const chat = await server.client.chat.completions.create({
            model: "upstream-stories", messages: [{role: "user", content: "Once upon a time"}], max_tokens: 8
        });
        assert.equal(chat.model, "upstream-stories");
        assert.equal(await upstreamRequests(), before + 2);
        const counted = await server.client.responses.inputTokens.count({model: "upstream-stories", input: "Once upon a time"});
        assert.equal(counted.input_tokens, remote.usage!.input_tokens, "counted by the upstream, as it evaluated");
    });

    it("an unknown name is 404 model_not_found, listing the local and the upstream's names", async () => {
        const response = await server.fetch("/v1/responses", {method: "POST", json: {model: "gpt-5", input: "hi"}});
        assert.equal(response.status, 404);
        const {error} = await response.json() as {error: {code: string, message: string}};
        assert.equal(error.code, "model_not_found");
        assert.match(error.message, /'stories260K-qwen'/);
        assert.match(error.message, /'upstream-stories'/);
    });
});
