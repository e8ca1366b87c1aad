import assert from "node:assert/strict";
import http from "node:http";
import type {AddressInfo} from "node:net";
import {test} from "node:test";
import OpenAI from "openai";
import {chunk, sseHead} from "../../helpers/scriptedUpstream.js";
import {listUpstreamModels} from "../../../src/host/upstreamModels.js";
import {HostController} from "../../../src/vscode/controller/HostController.js";
import {planSettingsChange, readSettings} from "../../../src/vscode/settings/extensionSettings.js";

/** An OpenAI-compatible upstream serving two models behind a bearer key; each answer names the model it was asked for. */
async function twoModelUpstream(key: string): Promise<{url: string, close(): Promise<void>}> {
    const server = http.createServer((req, res) => {
        if (req.headers.authorization !== `Bearer ${key}`) {
            res.writeHead(401, {"content-type": "application/json"}).end(JSON.stringify({error: {message: "Invalid API Key"}}));
            return;
        }
        if (req.method === "GET") {
            res.setHeader("content-type", "application/json");
            res.end(req.url === "/v1/models" ? JSON.stringify({object: "list", data: [{id: "alpha"}, {id: "beta"}]}) : "{}");
            return;
        }
        let text = "";
        req.on("data", (part) => (text += part));
        req.on("end", () => {
            sseHead(res);
            res.end(`${chunk({content: `model said: ${JSON.parse(text).model}`}, "stop")}data: [DONE]\n\n`);
        });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
        close: () => new Promise((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
        })
    };
}

/** A loopback URL nothing listens on (a port just freed). */
async function refusedUrl(): Promise<string> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise((resolve) => server.close(resolve));
    return `http://127.0.0.1:${port}/v1`;
}

test("upstream engine in the editor: Load Model… lists each upstream's models (or why not), connects the pick, Unload disconnects (503), "
    + "Load connects again", async () => {
    const upstream = await twoModelUpstream("sk-up");
    const dead = await refusedUrl();
    const values: Record<string, unknown> = {"engine": "upstream", "upstream.urls": [upstream.url, dead], "server.port": 0, "parallel": 1};
    const {settings} = readSettings((key) => values[key]);
    const controller = new HostController(settings, {
        apiKey: async () => "sk-client", upstreamApiKey: async () => "sk-up", resolveModelPath: (raw) => raw, log: () => undefined,
        onRequest: () => undefined
    });
    const ask = async () => {
        const client = new OpenAI({apiKey: "sk-client", baseURL: controller.state.endpoint!, maxRetries: 0});
        return (await client.responses.create({model: "any", input: "hi"})).output_text;
    };
    try {
        await controller.initialize();
        assert.equal(controller.state.upstreamModel, "alpha", "autoStart connects to the upstreams' first model");
        assert.equal(await ask(), "model said: alpha");

        const listings = await controller.listUpstreamModels();
        assert.deepEqual(listings[0], {url: upstream.url.replace(/\/v1$/, ""), models: ["alpha", "beta"], error: null},
            "listed with the upstream key");
        assert.equal(listings[1]!.url, dead.replace(/\/v1$/, ""));
        assert.match(listings[1]!.error!, /ECONNREFUSED/, "the silent upstream says why");

        const info = await controller.connectUpstreamModel("beta");
        assert.equal(info.id, "beta");
        assert.equal(controller.state.upstreamModel, "beta");
        assert.equal(controller.state.server, "listening");
        assert.equal(await ask(), "model said: beta", "the core now sends the picked model upstream");
        // The command then writes localResponses.upstream.model: that change is already applied, not rebuilt again.
        const written = readSettings((key) => ({...values, "upstream.model": "beta"})[key]).settings;
        assert.equal(planSettingsChange(controller.currentSettings, written).action, "none");

        await assert.rejects(controller.connectUpstreamModel("gamma"), /No upstream serves the model 'gamma' \(they list: alpha, beta\)/);
        assert.equal(controller.currentSettings.upstreamModel, "beta", "a failed pick leaves the setting as it was");

        await controller.connectUpstreamModel("beta");
        await controller.unloadModel();
        assert.equal(controller.state.model, null);
        assert.equal(controller.state.upstreamModel, null);
        assert.equal(controller.state.engine, "unloaded");
        await assert.rejects(ask(), (error: InstanceType<typeof OpenAI.APIError>) => {
            assert.equal(error.status, 503);
            assert.equal(error.code, "model_not_loaded");
            assert.match(error.message, /upstream servers are not connected/, "says what is missing in upstream mode");
            return true;
        });

        await controller.connectUpstreamModel("alpha");
        assert.equal(await ask(), "model said: alpha", "Load Model… connects again after Unload");
    } finally {
        await controller.dispose();
        await upstream.close();
    }
});

test("listUpstreamModels: a wrong upstream key is named with the upstream's 401, and nothing is listed", async () => {
    const upstream = await twoModelUpstream("sk-right");
    try {
        const [listing] = await listUpstreamModels({urls: [upstream.url], apiKey: "sk-wrong"});
        assert.deepEqual(listing!.models, []);
        assert.equal(listing!.error, "GET /v1/models answered 401: Invalid API Key");
    } finally {
        await upstream.close();
    }
});
