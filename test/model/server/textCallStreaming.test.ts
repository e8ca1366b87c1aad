import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import {readSse, startTestServer, type TestServer} from "../../helpers/testServer.js";
import {templateModel} from "../../helpers/templateModel.js";

/**
 * Calls read from the model's text (per-argument formats) stream through the real server as the model writes them:
 * a scripted model of the family's real template and vocabulary (a bigram chain of our own, each token once) writes a
 * whole `apply_patch` call, its string argument over several tokens; each protocol must send the name first and the
 * arguments in several deltas that add up to the final call (the reader once sent the whole call at the turn's end).
 * Then the same call cut by `max_output_tokens` inside its argument: an incomplete call item, not text.
 */
const patch = "Hello world, this patch streams.";
const families: Record<string, {chain: string[], cutAfter: number}> = {
    // GLM-4.7: `<tool_call>NAME<arg_key>KEY</arg_key><arg_value>VALUE</arg_value></tool_call>`, its tags special tokens.
    "glm-4.7-flash": {
        chain: ["</think>", "<tool_call>", "apply", "_patch", "<arg_key>", "input", "</arg_key>", "<arg_value>", "Hello", " world", ",",
            " this", " patch", " streams", ".", "</arg_value>", "</tool_call>"],
        cutAfter: 10
    },
    // Qwen3.5's `<function=…><parameter=…>` with no newlines (the format allows it), its tags cut across tokens as a
    // model may write them (`>Hello`, `.</`), so that no token repeats.
    "qwen3.5": {
        chain: ["\n\n", "<tool_call>", "<f", "unction", "=a", "pp", "ly", "_patch", "><", "parameter", "=input", ">Hello", " world",
            ",", " this", " patch", " streams", ".</", "param", "eter", "></", "function", ">", "</tool_call>"],
        cutAfter: 13
    }
};

const tool = {
    name: "apply_patch", description: "Apply a patch",
    parameters: {type: "object", properties: {input: {type: "string"}}, required: ["input"], additionalProperties: false}
};
const question = "Patch the file.";

async function postStream(server: TestServer, path: string, json: object): Promise<Response> {
    const response = await server.fetch(path, {method: "POST", json: {...json, stream: true}});
    assert.equal(response.status, 200);
    return response;
}

/** The deltas streamed: several (the call's text came in pieces), adding up to the final arguments. */
function assertStreamedInPieces(deltas: string[], final: string, label: string): void {
    assert.ok(deltas.length >= 4, `${label}: ${deltas.length} deltas ${JSON.stringify(deltas)}`);
    assert.ok(!deltas[0]!.includes("streams"), `${label}: the first delta came before the value was written: ${deltas[0]}`);
    assert.equal(deltas.join(""), final, label);
    assert.deepEqual(JSON.parse(final), {input: patch}, label);
}

for (const [family, {chain, cutAfter}] of Object.entries(families)) {
    describe(`${family}: a call read from the text streams on every protocol as it is written`, () => {
        let server: TestServer | undefined;
        before(async () => {
            server = await startTestServer({model: await templateModel(family, {name: "streamcall", chain}), contextSize: 4096});
        });
        after(() => server?.close());
        const responses = {model: "m", input: question, tools: [{type: "function", ...tool}], tool_choice: "auto", temperature: 0,
            reasoning: {effort: "none"}};

        it("Responses: function_call_arguments deltas add up to the call", async () => {
            const events = await readSse(await postStream(server!, "/v1/responses", {...responses, max_output_tokens: 64}));
            const added = events.find((event) => event.type === "response.output_item.added");
            assert.equal(added?.item.type, "function_call", JSON.stringify(events.map((event) => event.type)));
            assert.equal(added?.item.name, "apply_patch");
            const deltas = events.filter((event) => event.type === "response.function_call_arguments.delta")
                .map((event) => event.delta as string);
            const done = events.find((event) => event.type === "response.function_call_arguments.done");
            assertStreamedInPieces(deltas, done?.arguments as string, "Responses");
            const completed = events.at(-1)!;
            assert.equal(completed.type, "response.completed");
            assert.deepEqual(completed.response.output.map((item: {type: string, arguments?: string}) => [item.type, item.arguments]),
                [["function_call", done?.arguments]]);
        });

        it("Chat Completions: tool_calls argument chunks add up to the call, no text", async () => {
            const response = await postStream(server!, "/v1/chat/completions", {
                model: "m", messages: [{role: "user", content: question}], tools: [{type: "function", function: tool}], tool_choice: "auto",
                temperature: 0, max_tokens: 64, reasoning_effort: "none"
            });
            type Chunk = {choices: {delta: {content?: string, tool_calls?: {function?: {name?: string, arguments?: string}}[]},
                finish_reason?: string}[]};
            const chunks = (await response.text()).split("\n").filter((line) => line.startsWith("data: {"))
                .map((line) => JSON.parse(line.slice(6)) as Chunk);
            const calls = chunks.flatMap((chunk) => chunk.choices.flatMap((choice) => choice.delta.tool_calls ?? []));
            assert.equal(calls[0]?.function?.name, "apply_patch", JSON.stringify(chunks));
            const deltas = calls.map((call) => call.function?.arguments ?? "").filter((delta) => delta !== "");
            assertStreamedInPieces(deltas, deltas.join(""), "Chat");
            assert.equal(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join(""), "");
            assert.equal(chunks.at(-1)?.choices[0]?.finish_reason, "tool_calls");
        });

        it("Messages: input_json_delta events add up to the tool_use input", async () => {
            const events = await readSse(await postStream(server!, "/v1/messages", {
                model: "m", max_tokens: 64, temperature: 0, messages: [{role: "user", content: question}],
                tools: [{name: tool.name, description: tool.description, input_schema: tool.parameters}], tool_choice: {type: "auto"},
                thinking: {type: "disabled"}
            }));
            const starts = events.filter((event) => event.type === "content_block_start");
            assert.deepEqual(starts.map((event) => [event.content_block.type, event.content_block.name]), [["tool_use", "apply_patch"]]);
            const deltas = events.filter((event) => event.type === "content_block_delta" && event.delta.type === "input_json_delta")
                .map((event) => event.delta.partial_json as string);
            assertStreamedInPieces(deltas, deltas.join(""), "Messages");
            assert.equal(events.find((event) => event.type === "message_delta")?.delta.stop_reason, "tool_use");
        });

        it("Responses, cut by max_output_tokens inside the argument: an incomplete call item, not text", async () => {
            const events = await readSse(await postStream(server!, "/v1/responses", {...responses, max_output_tokens: cutAfter}));
            const final = events.at(-1)!;
            assert.equal(final.type, "response.incomplete", JSON.stringify(final));
            assert.equal(final.response.incomplete_details.reason, "max_output_tokens");
            const output = final.response.output as {type: string, status: string, name?: string, arguments?: string}[];
            assert.deepEqual(output.map((item) => [item.type, item.status, item.name]), [["function_call", "incomplete", "apply_patch"]],
                JSON.stringify(output));
            assert.ok(`{"input":"${patch}"}`.startsWith(output[0]!.arguments!) && output[0]!.arguments!.includes("Hello"),
                output[0]!.arguments);
            assert.equal(events.filter((event) => event.type === "response.output_text.delta").length, 0);
        });
    });
}
