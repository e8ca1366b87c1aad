import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {describe, it} from "node:test";
import {ApiError} from "../../../src/protocol/errors.js";
import type {Item} from "../../../src/protocol/wire.js";
import {compactResponse} from "../../../src/responses/compaction/compactRequest.js";
import type {Compactor} from "../../../src/responses/compaction/Compactor.js";
import {parseCreateRequest} from "../../../src/responses/createRequest.js";
import {normalizeInput} from "../../../src/responses/inputItems.js";
import {pageById} from "../../../src/responses/pagination.js";
import {
    checkBody, validateConversationCreate, validateConversationUpdate, validateSocketMessage
} from "../../../src/responses/requestSchemas/validators.js";
import {capturesDir} from "../../helpers/paths.js";
import {refusal} from "../../helpers/refusal.js";

/** A create body with `fields` over a minimal valid one. */
const create = (fields: Record<string, unknown>) => () => {
    const params = parseCreateRequest({model: "m", input: "hi", ...fields});
    return normalizeInput(params.rawInput, () => undefined);
};

const userWith = (content: unknown) => ({input: [{role: "user", content}]});

/** [body fields, status, code, param, message] — what the schema mapping must say for each kind of failure. */
const refusals: Array<[Record<string, unknown>, number, string, string | null, RegExp]> = [
    [
        {input: [{content: "no role"}]}, 400, "missing_required_parameter", "input[0].type",
        /^'input\[0\]' needs a 'type' \(or a 'role' for a message\)\.$/
    ],
    [{input: [{role: "wizard", content: "x"}]}, 400, "invalid_value", "input[0].role", /must be one of user, assistant, system, developer/],
    [
        {input: [{type: "telepathy"}]}, 400, "unsupported_value", "input[0].type",
        /^Unsupported input item type 'telepathy' in 'input\[0\]'\.$/
    ],
    [{input: [5]}, 400, "invalid_type", "input[0]", /^'input\[0\]' must be an object\.$/],
    [{input: 42}, 400, "invalid_type", "input", /must be a string or an array of items/],
    [{input: [{role: "user"}]}, 400, "missing_required_parameter", "input[0].content", /content parts/],
    [
        userWith([{type: "input_image", image_url: "data:,"}]), 400, "unsupported_content_type", "input[0].content[0].type",
        /^'input_image' content is not supported: .*vision/
    ],
    [
        userWith([{type: "bogus"}]), 400, "unsupported_value", "input[0].content[0].type",
        /^Unsupported content part type 'bogus' in 'input\[0\]\.content\[0\]'\.$/
    ],
    [userWith([{type: "input_text"}]), 400, "missing_required_parameter", "input[0].content[0].text", /must be a string/],
    [
        {input: [{role: "user", content: "x"}, {type: "function_call", name: "f", arguments: "{}"}]}, 400, "missing_required_parameter",
        "input[1].call_id", /non-empty string/
    ],
    [
        {input: [{type: "function_call_output", call_id: "c", output: [{type: "input_file"}]}]}, 400, "unsupported_content_type",
        "input[0].output[0].type", /vision/
    ],
    [
        {input: [{type: "function_call_output", call_id: "c", output: [{type: "zzz"}]}]}, 400, "invalid_value", "input[0].output[0]",
        /must be a text part/
    ],
    [
        {input: [{type: "reasoning", summary: [{type: "x", text: "a"}]}]}, 400, "invalid_value", "input[0].summary[0]",
        /must be a 'summary_text' part with a text/
    ],
    [
        {input: [{type: "message", role: "user", content: "x", status: "weird"}]}, 400, "invalid_value", "input[0].status",
        /in_progress, completed, incomplete/
    ],
    [
        {input: [{type: "item_reference", id: "msg_gone"}]}, 404, "item_not_found", "input[0].id",
        /Item 'msg_gone' referenced by 'input\[0\]' was not found/
    ],
    [{temperature: "hot"}, 400, "invalid_type", "temperature", /^Invalid value for 'temperature': must be number,null\.$/],
    [{top_p: 3}, 400, "invalid_value", "top_p", /must be <= 1/],
    [{frobnicate: true}, 400, "unknown_parameter", "frobnicate", /^Unknown parameter: 'frobnicate'\.$/],
    [{text: {format: {type: "text"}, mood: 1}}, 400, "unknown_parameter", "text.mood", /'text\.mood'/],
    [{truncation: "auto"}, 400, "unsupported_parameter", "truncation", /truncation 'auto' is not supported/],
    [{service_tier: "flex"}, 400, "unsupported_parameter", "service_tier", /service_tier 'flex' is not supported/],
    [{prompt: {id: "p"}}, 400, "unsupported_parameter", "prompt", /Reusable prompts/],
    [{include: ["telemetry.everything"]}, 400, "invalid_value", "include", /Unknown include value 'telemetry\.everything'/],
    [{metadata: {a: 5}}, 400, "invalid_type", "metadata.a", /^'metadata' takes at most 16 string values/],
    [
        {metadata: Object.fromEntries(Array.from({length: 17}, (_, index) => [`k${index}`, "v"]))}, 400, "invalid_value", "metadata",
        /at most 16/
    ],
    [{tools: [{type: "function", name: "bad name"}]}, 400, "invalid_value", "tools[0].name", /must match/],
    [{tools: [{type: "nope"}]}, 400, "unsupported_tool_type", "tools[0].type", /^Unknown tool type 'nope'\.$/],
    [
        {tools: [{type: "function", name: "a"}, {type: "custom", name: "a"}]}, 400, "invalid_value", "tools[1].name",
        /Duplicate tool name 'a'/
    ],
    [{tools: [{type: "function", name: "a", parameters: 5}]}, 400, "invalid_type", "tools[0].parameters", /JSON schema object/],
    [{tool_choice: "sometimes"}, 400, "invalid_value", "tool_choice", /Invalid tool_choice 'sometimes'/],
    [{tool_choice: {type: "web_search"}}, 400, "unsupported_tool_type", "tool_choice.type", /names a hosted tool/],
    [{tool_choice: {type: "function", name: "nope"}}, 400, "invalid_value", "tool_choice.name", /not among the declared function tools/],
    [{tool_choice: "required"}, 400, "invalid_value", "tool_choice", /needs at least one function tool/],
    [{text: {format: {type: "xml"}}}, 400, "unsupported_value", "text.format.type", /Unsupported text\.format type 'xml'/],
    [{text: {format: {type: "json_schema", name: "n"}}}, 400, "missing_required_parameter", "text.format.schema", /JSON schema object/],
    [{context_management: [{type: "other"}]}, 400, "unsupported_value", "context_management[0].type", /only 'compaction'/],
    [
        {context_management: [{type: "compaction", compact_threshold: 1e29}]}, 400, "invalid_value",
        "context_management[0].compact_threshold", /from 1 to 100000000/
    ],
    [{max_output_tokens: 1e29}, 400, "invalid_value", "max_output_tokens", /max_output_tokens/],
    [{conversation: "conv_a", previous_response_id: "resp_a"}, 400, "invalid_value", "conversation", /cannot be used together/],
    [{background: true, store: false}, 400, "invalid_value", "store", /must be stored/]
];

describe("request schemas: one 400 per failure, naming the parameter by its JSON path", () => {
    for (const [fields, status, code, param, message] of refusals)
        it(`${JSON.stringify(fields).slice(0, 90)} → ${status} ${code} ${param}`, () => {
            const error = refusal(create(fields));
            assert.deepEqual({status: error.status, code: error.code, param: error.param}, {status, code, param}, error.message);
            assert.match(error.message, message);
        });

    it("a body that is not an object is invalid_request_body", () => {
        for (const body of [[1, 2], "hi", null, 5])
            assert.equal(refusal(() => parseCreateRequest(body)).code, "invalid_request_body");
    });

    it("every real client capture (Codex CLI, the SDKs) passes, its items typed", () => {
        const captures = fs.readdirSync(capturesDir).filter((file) => file.endsWith(".json") && !file.endsWith(".headers.json"));
        assert.ok(captures.length >= 9, captures.join(", "));
        const stored: Item = {type: "message", id: "msg_stored", status: "completed", role: "user", content: []};
        for (const file of captures) {
            const params = parseCreateRequest(JSON.parse(fs.readFileSync(path.join(capturesDir, file), "utf8")));
            const items = normalizeInput(params.rawInput, () => stored);
            assert.ok(items.every((item) => typeof item.id === "string" && item.id !== ""), file);
        }
    });
});

describe("the other bodies' schemas", () => {
    const noCompactor = {compactWindow: () => assert.fail("compacted a refused body")} as unknown as Compactor;
    const compactRefusal = async (body: unknown) => {
        try {
            await compactResponse(noCompactor, () => "m", body, () => undefined, "owner");
        } catch (error) {
            assert.ok(error instanceof ApiError);
            return error;
        }
        assert.fail("accepted");
    };

    it("compact: refused fields, unknown fields, bounds and an empty history", async () => {
        assert.deepEqual(pick(await compactRefusal({input: "x", stream: true})), ["unsupported_parameter", "stream"]);
        assert.deepEqual(pick(await compactRefusal({input: "x", context_management: []})), ["unsupported_parameter", "context_management"]);
        assert.deepEqual(pick(await compactRefusal({input: "x", seed: 1})), ["unknown_parameter", "seed"]);
        assert.deepEqual(pick(await compactRefusal({input: "x", keep_tokens: 0})), ["invalid_value", "keep_tokens"]);
        assert.deepEqual(pick(await compactRefusal({input: []})), ["missing_required_parameter", "input"]);
        assert.deepEqual(pick(await compactRefusal({})), ["missing_required_parameter", "input"]);
        assert.deepEqual(pick(await compactRefusal({input: [{type: "function_call", call_id: "c", name: "f"}]})),
            ["missing_required_parameter", "input[0].arguments"]);
    });

    it("conversations: items capped at 20 and named 'items[i]', metadata required on update", () => {
        const tooMany = Array.from({length: 21}, () => ({role: "user", content: "x"}));
        assert.deepEqual(pick(refusal(() => checkBody(validateConversationCreate, {items: tooMany}))), ["invalid_value", "items"]);
        assert.deepEqual(pick(refusal(() => checkBody(validateConversationCreate, {items: [{role: "nobody", content: "x"}]}))),
            ["invalid_value", "items[0].role"]);
        assert.deepEqual(pick(refusal(() => checkBody(validateConversationCreate, {metadata: "x"}))), ["invalid_type", "metadata"]);
        assert.deepEqual(pick(refusal(() => checkBody(validateConversationUpdate, {}))), ["missing_required_parameter", "metadata"]);
        assert.deepEqual(checkBody(validateConversationUpdate, {metadata: null}), {metadata: null});
    });

    it("WebSocket messages: the type, and the HTTP-only fields", () => {
        assert.deepEqual(pick(refusal(() => checkBody(validateSocketMessage, {type: "response.cancel"}))),
            ["unsupported_message_type", "type"]);
        assert.deepEqual(pick(refusal(() => checkBody(validateSocketMessage, {input: "x"}))), ["unsupported_message_type", "type"]);
        assert.deepEqual(pick(refusal(() => checkBody(validateSocketMessage, [1]))), ["invalid_message", null]);
        assert.deepEqual(pick(refusal(() => checkBody(validateSocketMessage, {type: "response.create", stream: false}))),
            ["unsupported_parameter", "stream"]);
        assert.deepEqual(pick(refusal(() => checkBody(validateSocketMessage, {type: "response.create", background: true}))),
            ["unsupported_parameter", "background"]);
        assert.ok(checkBody(validateSocketMessage, {type: "response.create", stream: true, input: "x"}));
    });

    it("list queries: order, limit in decimal digits from 1 to 100, and an after that names an item", () => {
        const items = [{id: "a"}, {id: "b"}, {id: "c"}];
        assert.deepEqual(pageById(items, {order: "asc", limit: "002"}, () => "").data, [{id: "a"}, {id: "b"}]);
        assert.deepEqual(pageById(items, {limit: "100", after: "c"}, () => "").data, [{id: "b"}, {id: "a"}]);
        for (const limit of ["0", "101", "1e2", "0x10", " 5", "2.5"])
            assert.deepEqual(pick(refusal(() => pageById(items, {limit}, () => ""))), ["invalid_value", "limit"], limit);
        assert.deepEqual(pick(refusal(() => pageById(items, {limit: ["1", "2"]}, () => ""))), ["invalid_type", "limit"]);
        assert.deepEqual(pick(refusal(() => pageById(items, {order: "up"}, () => ""))), ["invalid_value", "order"]);
        assert.equal(refusal(() => pageById(items, {after: "zz"}, (after) => `No item '${after}'.`)).message, "No item 'zz'.");
    });
});

function pick(error: ApiError): [string | null, string | null] {
    return [error.code, error.param];
}
