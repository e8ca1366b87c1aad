import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {before, describe, it} from "node:test";
import {syntheticModel} from "../../helpers/syntheticModel.js";
import {startTestServer, type TestServerOptions} from "../../helpers/testServer.js";

/**
 * Issue 31, item 0: while the durable prompt cache saved a finished turn's state it held the sequence, and a next turn
 * sent at once was placed on another sequence and evaluated cold (0-6 of ~1,530 tokens reused, where a 4-second pause
 * reused 1,530). The full-size synthetic model makes the state large enough (~23 KB a token) for the save to take a
 * while; the next request is sent the instant the previous response ends, as a coding agent sends its next turn.
 */
describe("the next turn finds its prefix even while the last one's state is being saved", () => {
    let model: string;
    before(async () => {
        model = await syntheticModel();
    });

    const system = "You are a coding agent working in a large repository. "
        + Array.from({length: 45}, (_, index) => `Rule ${index}: keep module ${index} tested.`).join(" ");

    for (const store of ["durable", "memory"] as const)
        for (const parallel of [1, 2, 4])
            it(`${store} store, ${parallel} sequence${parallel === 1 ? "" : "s"}`, async () => {
                const options: TestServerOptions = {model, contextSize: 2048, parallel, threads: 1, promptThreads: 2};
                if (store === "durable")
                    options.storage = {
                        kind: "durable", dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "lr-next-turn-")), promptCacheMinTokens: 256
                    };
                const server = await startTestServer(options);
                try {
                    const input: {role: "user" | "assistant", content: string}[] = [{role: "user", content: "Open the file src/index.ts."}];
                    const first = await server.client.responses.create({
                        model: "m", instructions: system, input, max_output_tokens: 4, temperature: 0
                    });
                    // At once, as an agent does: the whole history again with one more line.
                    input.push({role: "assistant", content: first.output_text}, {role: "user", content: "Now run the tests."});
                    const second = await server.client.responses.create({
                        model: "m", instructions: system, input, max_output_tokens: 4, temperature: 0
                    });
                    const held = first.usage!.input_tokens;
                    assert.ok(held > 600, `a long first prompt (${held} tokens)`);
                    assert.ok(second.usage!.input_tokens_details.cached_tokens >= held - 8,
                        `${second.usage!.input_tokens_details.cached_tokens} of ${second.usage!.input_tokens} reused; the first `
                            + `turn's prompt was ${held}`);
                } finally {
                    await server.close();
                }
            });
});
