import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {describe, it} from "node:test";
import {assertValidStream} from "../../helpers/conformance.js";
import {capturesDir} from "../../helpers/paths.js";
import {readSse, useTestServer} from "../../helpers/testServer.js";

/**
 * Requests Codex CLI really sent: function tools, a custom apply_patch tool with a Lark grammar, hosted
 * tool_search/web_search, include reasoning.encrypted_content, store false, developer messages; the follow-up adds a
 * function call and its output, the fallback-model one has Codex's shorter instructions for an unknown model. The
 * first renders to 21,818 tokens with the ChatML wrapper (tool docs included), hence a 24,576-token context and one
 * sequence (the follow-up reuses the first one's prefix). The tiny model never ends a turn by itself: the operator
 * stop sequence "." (`--stop`) ends its answer as a real model's end of turn would, so each replay completes.
 * Prompt evaluation takes minutes on a shared 2-core machine (see docs/performance.md, Engine settings).
 */
describe("captured Codex requests replayed against the server", () => {
    const server = useTestServer({contextSize: 24576, parallel: 1, threads: 1, stopSequences: ["."]});

    for (const capture of ["codex-request.json", "codex-request-followup.json", "codex-request-fallback-model.json"]) {
        it(`${capture} streams a completed response, every event valid`, async () => {
            const body = JSON.parse(fs.readFileSync(path.join(capturesDir, capture), "utf8"));
            const started = performance.now();
            const res = await server.fetch("/v1/responses", {method: "POST", json: body, headers: {accept: "text/event-stream"}});
            assert.equal(res.status, 200, await res.clone().text());
            const events = await readSse(res);
            assertValidStream(events);
            const terminal = events.at(-1)!;
            assert.equal(terminal.type, "response.completed",
                JSON.stringify(terminal.response?.error ?? terminal.response?.incomplete_details ?? terminal));
            const usage = terminal.response.usage;
            assert.ok(usage.input_tokens > 15_000);
            assert.ok(usage.output_tokens > 0);
            // Codex reads items from output_item.done: each output item has its event. (The stop sequence may leave no
            // item at all: stories260K sometimes opens its answer with the "." that ends it.)
            const done = events.filter((event) => event.type === "response.output_item.done").map((event) => event.item.id);
            assert.deepEqual(done, terminal.response.output.map((item: {id: string}) => item.id),
                "Codex reads items from output_item.done");
            assert.deepEqual(terminal.response.tools.map((tool: any) => tool.name).slice(0, 2), ["exec_command", "write_stdin"]);
            // A figure, not an assertion: prompt evaluation dominates.
            console.log(
                `${capture}: ${usage.input_tokens} input tokens (${usage.input_tokens_details.cached_tokens} `
                    + `cached), ${usage.output_tokens} output, ${((performance.now() - started) / 1000).toFixed(1)} s`
            );
        });
    }
});
