import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {describe, it} from "node:test";
import {zodTextFormat} from "openai/helpers/zod";
import {z} from "zod";
import {assertValidResponse, assertValidStream} from "../../helpers/conformance.js";
import {capturesDir} from "../../helpers/paths.js";
import {readSse, useTestServer} from "../../helpers/testServer.js";

const report = {
    type: "object",
    properties: {
        city: {type: "string", maxLength: 16},
        temperature_c: {type: "number"},
        conditions: {type: "string", enum: ["sunny", "cloudy", "rainy"]},
        note: {type: ["string", "null"], maxLength: 8}
    },
    required: ["city", "temperature_c", "conditions", "note"],
    additionalProperties: false
};
const schemaFormat = (schema: Record<string, unknown>, strict = true) => ({format: {type: "json_schema", name: "report", strict, schema}});

describe("structured output (grammar-constrained, ajv-validated before publishing)", () => {
    const server = useTestServer();

    it("json_schema: the output parses and matches the schema (non-streaming)", async () => {
        const response = await server.client.responses.create({model: "m", input: "Weather report", text: schemaFormat(report) as any});
        assertValidResponse(response);
        assert.equal(response.status, "completed");
        const value = JSON.parse(response.output_text);
        assert.deepEqual(Object.keys(value).sort(), ["city", "conditions", "note", "temperature_c"]);
        assert.ok(["sunny", "cloudy", "rainy"].includes(value.conditions));
        assert.equal(response.text?.format?.type, "json_schema");
    });

    it("json_schema streamed: lifecycle first, content only after validation, deltas add up", async () => {
        const res = await server.fetch("/v1/responses",
            {method: "POST", json: {model: "m", input: "Weather", stream: true, text: schemaFormat(report)}});
        const events = await readSse(res);
        assertValidStream(events);
        assert.deepEqual(events.slice(0, 2).map((event) => event.type), ["response.created", "response.in_progress"]);
        const text = events.filter((event) => event.type === "response.output_text.delta").map((event) => event.delta).join("");
        JSON.parse(text);
        assert.equal(events.at(-1)!.response.output[0].content[0].text, text);
    });

    it("json_object gives a JSON object", async () => {
        const response = await server.client.responses.create({model: "m", input: "JSON please", text: {format: {type: "json_object"}}});
        assertValidResponse(response);
        const value = JSON.parse(response.output_text);
        assert.equal(typeof value, "object");
        assert.ok(!Array.isArray(value));
    });

    it("a JSON cut by max_output_tokens is incomplete with nothing unvalidated published", async () => {
        const res = await server.fetch("/v1/responses",
            {method: "POST", json: {model: "m", input: "Weather", stream: true, max_output_tokens: 5, text: schemaFormat(report)}});
        const events = await readSse(res);
        assertValidStream(events);
        assert.equal(events.at(-1)!.type, "response.incomplete");
        assert.ok(!events.some((event) => event.type === "response.output_text.delta"));
        assert.deepEqual(events.at(-1)!.response.output, []);
        assert.ok(events.at(-1)!.response.usage.output_tokens > 0);
    });

    it("responses.parse with a zod schema returns a parsed object, streamed and not", async () => {
        const Report = z.object({city: z.string(), temperature_c: z.number(), conditions: z.enum(["sunny", "cloudy", "rainy"])});
        const parsed = await server.client.responses.parse({
            model: "m", input: "Invent a weather report for Oslo.", text: {format: zodTextFormat(Report, "weather_report")}
        });
        assert.ok(parsed.output_parsed);
        assert.doesNotThrow(() => Report.parse(parsed.output_parsed));

        const stream = server.client.responses.stream({
            model: "m", input: "Oslo weather", text: {format: zodTextFormat(Report, "weather_report")}
        });
        let deltas = 0;
        stream.on("response.output_text.delta", () => deltas++);
        const final = await stream.finalResponse();
        assert.ok(deltas > 0);
        assert.doesNotThrow(() => Report.parse(final.output_parsed));
    });

    it("the captured SDK and Vercel structured requests (draft-07 $schema keys) are answered", async () => {
        for (const file of ["openai-sdk-parse-request.json", "vercel-ai-structured-request.json"]) {
            const body = JSON.parse(fs.readFileSync(path.join(capturesDir, file), "utf8"));
            const res = await server.fetch("/v1/responses", {method: "POST", json: body});
            assert.equal(res.status, 200, file);
            const response = await res.json();
            assertValidResponse(response);
            JSON.parse(response.output.find((item: any) => item.type === "message").content[0].text);
        }
    });

    describe("schema refusals at create (400 before generation)", () => {
        const refusals: Array<[string, Record<string, unknown>, RegExp, boolean?]> = [
            ["root not an object", {type: "array", items: {type: "string"}}, /root must be an object/],
            ["pattern", {...report, properties: {...report.properties, city: {type: "string", pattern: "^[A-Z]"}}}, /'pattern'/],
            ["minimum", {...report, properties: {...report.properties, temperature_c: {type: "number", minimum: -90}}}, /'minimum'/],
            ["allOf", {...report, allOf: [{type: "object"}]}, /'allOf'/],
            ["format email", {...report, properties: {...report.properties, city: {type: "string", format: "email"}}}, /format 'email'/],
            ["remote $ref", {...report, properties: {...report.properties, city: {$ref: "https://example.com/s.json"}}}, /reference/],
            ["strict without additionalProperties false", {...report, additionalProperties: true}, /additionalProperties/],
            ["strict with an optional property", {...report, required: ["city"]}, /every property/],
            ["more than 64 KiB", {...report, description: "x".repeat(70_000)}, /bytes/, false],
            [
                "more than 512 nodes", {type: "object",
                    properties: Object.fromEntries(Array.from({length: 520}, (_, i) => [`p${i}`, {type: "string"}]))}, /512 nodes/, false
            ],
            ["deeper than 24 levels", nest(26), /deeper than 24/, false]
        ];
        for (const [label, schema, message, strict] of refusals)
            it(label, async () => {
                const res = await server.fetch("/v1/responses",
                    {method: "POST", json: {model: "m", input: "x", text: schemaFormat(schema, strict ?? true)}});
                assert.equal(res.status, 400);
                const body = await res.json();
                assert.equal(body.error.param, "text.format.schema");
                assert.match(body.error.message, message);
            });

        it("a strict tool's parameters follow the same rules", async () => {
            const res = await server.fetch("/v1/responses", {method: "POST", json: {model: "m", input: "x", tools: [
                {
                    type: "function", name: "f", strict: true, parameters: {
                        type: "object", properties: {a: {type: "string", pattern: "x"}}, required: ["a"], additionalProperties: false
                    }
                }
            ]}});
            assert.equal(res.status, 400);
            assert.equal((await res.json()).error.param, "tools[0].parameters");
        });

        it("$schema keys and non-strict optional properties are accepted", async () => {
            const response = await server.client.responses.create({model: "m", input: "x", max_output_tokens: 40, text: schemaFormat({
                $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: {a: {type: "boolean"}}
            }, false) as any});
            assertValidResponse(response);
        });
    });
});

function nest(depth: number): Record<string, unknown> {
    let schema: Record<string, unknown> = {type: "string"};
    for (let level = 0; level < depth; level++)
        schema = {type: "object", properties: {a: schema}};
    return schema;
}
