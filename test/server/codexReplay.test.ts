import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {after, before, describe, it} from "node:test";
import {assertValidStream} from "../helpers/conformance.js";
import {capturesDir} from "../helpers/paths.js";
import {readSse, startTestServer, type TestServer} from "../helpers/testServer.js";

/**
 * A request Codex CLI really sent: function tools, a custom apply_patch tool with a Lark grammar,
 * hosted tool_search/web_search, include reasoning.encrypted_content, store false, developer
 * messages. It renders to 21,818 tokens with the ChatML wrapper (tool docs included), so the
 * context is 23,040; prompt evaluation alone takes minutes on a shared 2-core machine, hence one
 * capture only. The tiny model does not stop on its own: it writes until the context is full, which
 * is reported truthfully as incomplete (a real model ends its turn and completes).
 */
describe("captured Codex request replayed against the server", () => {
    let server: TestServer;
    before(async () => {
        server = await startTestServer({contextSize: 23040, parallel: 1});
    });
    after(() => server.close());

    it("codex-request.json streams every event valid, with one terminal event", async () => {
        const body = JSON.parse(fs.readFileSync(path.join(capturesDir, "codex-request.json"), "utf8"));
        const res = await server.fetch("/v1/responses", {method: "POST", json: body, headers: {accept: "text/event-stream"}});
        assert.equal(res.status, 200, await res.clone().text());
        const events = await readSse(res);
        assertValidStream(events);
        const terminal = events.at(-1)!;
        assert.ok(terminal.type === "response.completed" || terminal.type === "response.incomplete", JSON.stringify(terminal.response?.error ?? terminal));
        assert.ok(terminal.response.usage.input_tokens > 20_000);
        assert.ok(events.some((event) => event.type === "response.output_item.done"), "Codex reads items from output_item.done");
        assert.deepEqual(terminal.response.tools.map((tool: any) => tool.name).slice(0, 3), ["exec_command", "write_stdin", "request_user_input"]);
    });
});
