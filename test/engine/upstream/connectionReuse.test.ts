import assert from "node:assert/strict";
import http from "node:http";
import type {AddressInfo} from "node:net";
import {describe, it} from "node:test";
import {UpstreamEngine} from "../../../src/engine/upstream/UpstreamEngine.js";

/** The generation requests' keep-alive connections, counted on a loopback upstream that answers like llama-server. */
describe("upstream engine connections", () => {
    it("reuses one keep-alive connection for consecutive generations, and closes it when disposed", async () => {
        const sockets: import("node:net").Socket[] = [];
        const server = http.createServer((req, res) => {
            if (req.method === "GET") {
                res.setHeader("content-type", "application/json");
                res.end(req.url === "/v1/models" ? JSON.stringify({data: [{id: "scripted"}]}) : "{}");
                return;
            }
            req.resume();
            req.on("end", () => {
                res.writeHead(200, {"content-type": "text/event-stream"});
                res.write(`data: ${JSON.stringify({choices: [{index: 0, delta: {content: "hi"}, finish_reason: "stop"}]})}\n\n`);
                // [DONE], then the end of the chunked body in a later write, as a server may send them.
                res.write("data: [DONE]\n\n");
                setTimeout(() => res.end(), 5);
            });
        });
        server.on("connection", (socket) => sockets.push(socket));
        await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
        const engine = new UpstreamEngine({urls: [`http://127.0.0.1:${(server.address() as AddressInfo).port}`], healthIntervalMs: 60_000});
        try {
            await engine.load("");
            const before = sockets.length;
            for (let turn = 0; turn < 4; turn++) {
                const result = await engine.generate({turns: [{role: "user", text: "x"}]});
                assert.equal(result.text, "hi");
                // Let the body's end arrive and the socket go back to the pool before the next request.
                await new Promise((resolve) => setTimeout(resolve, 30));
            }
            const generations = sockets.slice(before);
            assert.equal(generations.length, 1, "one connection for four generations (the body's end is read after [DONE], not cut)");
            assert.equal(generations[0]!.destroyed, false, "kept open in the pool");
            await engine.dispose();
            const started = Date.now();
            while (!generations[0]!.destroyed && Date.now() - started < 2000)
                await new Promise((resolve) => setTimeout(resolve, 10));
            assert.equal(generations[0]!.destroyed, true, "disposing the engine closed its pooled connection");
        } finally {
            await engine.dispose();
            server.closeAllConnections();
            await new Promise((resolve) => server.close(resolve));
        }
    });
});
