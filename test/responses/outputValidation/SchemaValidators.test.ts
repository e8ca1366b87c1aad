import assert from "node:assert/strict";
import type {AddressInfo} from "node:net";
import {describe, it} from "node:test";
import {setFlagsFromString} from "node:v8";
import {runInNewContext} from "node:vm";
import {createApp} from "../../../src/server/app.js";
import {anonymousSchema} from "../../../src/responses/outputValidation/anonymousSchema.js";
import {parseCreateRequest} from "../../../src/responses/createRequest.js";
import {checkClientSchema, OutputValidator} from "../../../src/responses/outputValidation/OutputValidator.js";
import {ResponsesService} from "../../../src/responses/ResponsesService.js";
import {ChatCompletionsService} from "../../../src/protocols/chat/ChatCompletionsService.js";
import {MessagesService} from "../../../src/protocols/messages/MessagesService.js";
import {compiledSchemaLimit, SchemaValidators, schemaValidators} from "../../../src/responses/outputValidation/SchemaValidators.js";
import {maxTools} from "../../../src/responses/requestSchemas/createRequestSchema.js";
import {ResponseStore} from "../../../src/store/ResponseStore.js";
import {ScriptedEngine} from "../../helpers/ScriptedEngine.js";
import {refusal} from "../../helpers/refusal.js";

/** A strict tool schema of ordinary size, made distinct by `index` (ajv compiles each anew). */
function distinctSchema(index: number): Record<string, unknown> {
    const number = {type: "number"};
    return {
        type: "object",
        additionalProperties: false,
        required: ["id", "tags", "note", "point"],
        properties: {
            id: {type: "integer", description: `schema ${index}`},
            tags: {type: "array", items: {type: "string", maxLength: 32}, maxItems: 8},
            note: {anyOf: [{type: "string"}, {type: "null"}]},
            point: {$ref: "#/$defs/point"}
        },
        $defs: {point: {type: "object", additionalProperties: false, required: ["x", "y"], properties: {x: number, y: number}}}
    };
}

/** `global.gc` without `--expose-gc` on the command line (the suite runs without it). */
function collector(): () => void {
    setFlagsFromString("--expose-gc");
    return runInNewContext("gc") as () => void;
}

/** Two different schemas under one `$id`, as two keys might send them. */
const closed = (id: string, name: string, type: string) => (
    {type: "object", $id: id, properties: {[name]: {type}}, required: [name], additionalProperties: false}
);
const answer = (id: string) => closed(id, "n", "integer");
const label = (id: string) => closed(id, "s", "string");

describe("compiled client schemas", () => {
    it("stay bounded in memory: 2,000 distinct strict tool and json_schema schemas grow the heap by less than 8 MiB", () => {
        const gc = collector();
        const valid = {id: 1, tags: [], note: null, point: {x: 0, y: 0}};
        const compileThrough = (index: number) => {
            const schema = distinctSchema(index);
            // The two real paths: a strict tool's parameters and a json_schema format, checked at create, then used.
            checkClientSchema(schema, {param: "tools[0].parameters", strict: true});
            const format = {type: "json_schema" as const, name: "n", schema, strict: true, description: null};
            const validator = new OutputValidator(format, new Map([["f", schema]]));
            const result = {text: JSON.stringify(valid), calls: [{name: "f", arguments: JSON.stringify(valid)}], stopReason: "stop"};
            assert.equal(validator.check(result as never), null);
        };
        // Fill the cache first, so that what follows measures growth beyond it.
        for (let index = 0; index < 2 * compiledSchemaLimit; index++)
            compileThrough(-1 - index);
        gc();
        const before = process.memoryUsage();
        for (let index = 0; index < 2000; index++)
            compileThrough(index);
        gc();
        const after = process.memoryUsage();
        const heapGrowth = after.heapUsed - before.heapUsed;
        const rssGrowth = after.rss - before.rss;
        // Before the cache really evicted, ajv kept every one of them: about 15 KiB each, 30 MiB (0.6 MiB since).
        const mib = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MiB`;
        assert.ok(heapGrowth < 8 * 1024 * 1024, `heap grew ${mib(heapGrowth)} (RSS ${mib(rssGrowth)})`);
        assert.ok(schemaValidators.size <= compiledSchemaLimit);
    });

    it("evicts the least recently used entry, and a hit keeps an entry", () => {
        const validators = new SchemaValidators(2);
        const [a, b, c] = [0, 1, 2].map(distinctSchema);
        const first = validators.get(a!);
        const second = validators.get(b!);
        assert.equal(validators.get(a!), first, "a hit returns the same compiled validator");
        validators.get(c!);
        assert.equal(validators.size, 2);
        assert.equal(validators.get(a!), first, "a, used after b, was kept");
        assert.notEqual(validators.get(b!), second, "b was evicted and compiles anew");
    });

    it("compiles two different schemas with the same $id (as two keys would send them), each validating its own output", () => {
        const id = "https://example.com/shared.json";
        const validators = new SchemaValidators();
        checkClientSchema(answer(id), {param: "text.format.schema", strict: true});
        checkClientSchema(label(id), {param: "text.format.schema", strict: true});
        assert.equal(validators.problem(answer(id), {n: 3}), null);
        assert.equal(validators.problem(label(id), {s: "x"}), null);
        assert.match(validators.problem(label(id), {n: 3}) ?? "", /must have required property 's'/);
        // The same schema under the same $id, compiled twice in one cache and after an eviction, is no collision either.
        const tiny = new SchemaValidators(1);
        for (const schema of [answer(id), label(id), answer(id)])
            assert.equal(typeof tiny.get(schema), "function");
    });

    it("resolves '#/$defs/NAME' against the root even under a nested $id, as the grammar does", () => {
        const schema = {
            $id: "root", type: "object", additionalProperties: false, required: ["a"],
            $defs: {n: {type: "integer"}},
            properties: {a: {$id: "https://example.com/nested", $ref: "#/$defs/n"}}
        };
        checkClientSchema(schema, {param: "text.format.schema", strict: true});
        const validators = new SchemaValidators();
        assert.equal(validators.problem(schema, {a: 1}), null);
        assert.match(validators.problem(schema, {a: "x"}) ?? "", /must be integer/);
    });

    it("drops $id only where a schema is: a property named $id and $id inside enum, const and examples stay", () => {
        const schema = {
            $schema: "http://json-schema.org/draft-07/schema#", $id: "x", type: "object",
            properties: {$id: {type: "string", $id: "y", enum: [{$id: 1}]}, b: {const: {$id: 2}, examples: [{$id: 3}]}},
            anyOf: [{$id: "z", type: "object"}]
        };
        assert.deepEqual(anonymousSchema(schema), {
            type: "object",
            properties: {$id: {type: "string", enum: [{$id: 1}]}, b: {const: {$id: 2}, examples: [{$id: 3}]}},
            anyOf: [{type: "object"}]
        });
        assert.equal(schema.$id, "x", "the client's schema is left as it was");
    });

    it("answers 200 over HTTP to two keys sending different json_schema formats with the same $id", async () => {
        const id = "https://example.com/shared.json";
        const engine = new ScriptedEngine({events: [{type: "text", text: "{\"n\":3}"}]}, {events: [{type: "text", text: "{\"s\":\"x\"}"}]});
        const responses = new ResponsesService(engine, new ResponseStore());
        const app = createApp({engine, responses, chat: new ChatCompletionsService(responses), messages: new MessagesService(responses),
            apiKeys: () => ["sk-key-a", "sk-key-b"]});
        const server = app.listen(0, "127.0.0.1");
        await new Promise((resolve) => server.once("listening", resolve));
        try {
            const port = (server.address() as AddressInfo).port;
            const create = (key: string, schema: unknown) => fetch(`http://127.0.0.1:${port}/v1/responses`, {
                method: "POST",
                headers: {"authorization": `Bearer ${key}`, "content-type": "application/json"},
                body: JSON.stringify({model: "m", input: "x", text: {format: {type: "json_schema", name: "out", schema, strict: true}}})
            });
            for (const [key, schema, text] of [["sk-key-a", answer(id), "{\"n\":3}"], ["sk-key-b", label(id), "{\"s\":\"x\"}"]] as const) {
                const reply = await create(key, schema);
                const body = await reply.json() as {status: string, output: Array<{content?: Array<{text: string}>}>};
                assert.equal(reply.status, 200, JSON.stringify(body));
                assert.equal(body.status, "completed");
                assert.equal(body.output.at(-1)?.content?.[0]?.text, text);
            }
        } finally {
            await new Promise((resolve) => server.close(resolve));
        }
    });
});

describe("the number of tools", () => {
    const tools = (count: number) => Array.from({length: count}, (_, index) => ({type: "function", name: `tool_${index}`}));

    it(`takes ${maxTools} tools and refuses one more with 400 naming 'tools'`, () => {
        assert.equal(parseCreateRequest({model: "m", input: "x", tools: tools(maxTools)}).tools.offered.length, maxTools);
        const error = refusal(() => parseCreateRequest({model: "m", input: "x", tools: tools(maxTools + 1)}));
        assert.deepEqual({status: error.status, type: error.type, code: error.code, param: error.param},
            {status: 400, type: "invalid_request_error", code: "invalid_value", param: "tools"});
        assert.equal(error.message, `Invalid 'tools': array too long. Expected an array with maximum length ${maxTools}.`);
    });
});
