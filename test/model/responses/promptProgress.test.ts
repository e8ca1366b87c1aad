import assert from "node:assert/strict";
import {test} from "node:test";
import type {PromptProgress} from "../../../src/engine/types.js";
import {defaultConfig} from "../../../src/host/config.js";
import {LocalResponsesHost} from "../../../src/host/LocalResponsesHost.js";
import {models} from "../../helpers/paths.js";
import {createResponse} from "../../helpers/createResponse.js";

test("the host tells each response's prompt evaluation, step by step, and that it is all in at the first output token", async () => {
    const seen: (PromptProgress & {id: string})[] = [];
    const host = new LocalResponsesHost({...defaultConfig(), port: 0, threads: 1, contextSize: 2048, apiKeys: ["sk-test"]}, {
        onPromptProgress: (id, progress) => seen.push({id, ...progress})
    });
    try {
        await host.loadModel(models.chatml);
        const story = "Once upon a time there was a little girl named Lily. She liked to play in the park. ".repeat(12);
        const response = await createResponse(host.responses, "owner", {model: "local", input: story, max_output_tokens: 4});
        const own = seen.filter((progress) => progress.id === response.id);
        assert.equal(own.length, seen.length, "every report names its response");
        assert.ok(own.length >= 2, `${own.length} reports`);
        const last = own.at(-1)!;
        assert.equal(last.total, response.usage!.input_tokens);
        // The last step is evaluated with the first output token, and reported then.
        assert.equal(last.evaluated, last.total, "the prompt is all in");
        assert.ok(own.at(-2)!.evaluated < last.total, "the steps before it left the rest to generation");
        assert.deepEqual(own.map((progress) => progress.evaluated), [...own.map((progress) => progress.evaluated)].sort((a, b) => a - b),
            "it only moves forward");
    } finally {
        await host.dispose();
    }
});
