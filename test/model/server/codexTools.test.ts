import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {describe, it} from "node:test";
import {assertValidStream} from "../../helpers/conformance.js";
import {capturesDir} from "../../helpers/paths.js";
import {readSse, useTestServer} from "../../helpers/testServer.js";

/**
 * Codex's `namespace` tools on the real engine: the fallback-model capture's tools (its `multi_agent_v1` namespace,
 * function tools and a hosted web_search), a call forced by a `tool_choice` that names the namespace, and a second
 * turn that replays the call as Codex does (`store: false`, the call and its output resent in `input`). The capture's
 * own instructions are left out, and both turns stream (keep-alive events) with the same tools and tool_choice, so the
 * second reuses the first one's prompt: its tools alone take minutes to evaluate on a shared 2-core machine.
 */
describe("Codex namespace tools on the real engine", () => {
    const server = useTestServer({contextSize: 16384, parallel: 1, threads: 1});
    const capture = JSON.parse(fs.readFileSync(path.join(capturesDir, "codex-request-fallback-model.json"), "utf8"));
    const user = {type: "message", role: "user", content: [{type: "input_text", text: "Close agent a1."}]};
    const choice = {type: "function", namespace: "multi_agent_v1", name: "close_agent"};

    it("a forced namespaced call comes back as a function_call carrying namespace, and its replay is accepted", async () => {
        const first = await server.fetch("/v1/responses", {method: "POST", json: {
            model: "m", stream: true, store: false, tools: capture.tools, tool_choice: choice, parallel_tool_calls: false,
            temperature: 0, max_output_tokens: 96, input: [user]
        }});
        assert.equal(first.status, 200, await first.clone().text());
        const events = await readSse(first);
        assertValidStream(events);
        const response = events.at(-1)!.response;
        assert.ok(response.tools.some((tool: any) => tool.type === "namespace" && tool.name === "multi_agent_v1"),
            "the namespace is echoed");
        assert.deepEqual(response.tool_choice, {type: "function", name: "close_agent", namespace: "multi_agent_v1"});
        const call = response.output.find((item: any) => item.type === "function_call");
        assert.ok(call != null, JSON.stringify(response.output));
        assert.equal(call.name, "close_agent");
        assert.equal(call.namespace, "multi_agent_v1");
        const done = events.find((event) => event.type === "response.output_item.done" && event.item.type === "function_call");
        assert.equal(done?.item.namespace, "multi_agent_v1", "Codex reads the call from output_item.done");

        // The same tools and tool_choice: the second prompt extends the first one's prefix, which the engine reuses.
        const second = await server.fetch("/v1/responses", {method: "POST", json: {
            model: "m", stream: true, store: false, tools: capture.tools, tool_choice: choice, parallel_tool_calls: false,
            temperature: 0, max_output_tokens: 96,
            input: [user, call, {type: "function_call_output", call_id: call.call_id, output: "closed"}]
        }});
        assert.equal(second.status, 200, await second.clone().text());
        const nextEvents = await readSse(second);
        assertValidStream(nextEvents);
        const next = nextEvents.at(-1)!.response;
        assert.notEqual(next.status, "failed", JSON.stringify(next.error));
        assert.ok(next.usage.input_tokens > response.usage.input_tokens, "the replayed call and its output are in the prompt");
        assert.ok(next.usage.input_tokens_details.cached_tokens > 0, "the first turn's prefix was reused");
    });
});
