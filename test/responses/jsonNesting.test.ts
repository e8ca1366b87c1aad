import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {parseCreateRequest} from "../../src/responses/createRequest.js";
import {checkJsonNesting, maxJsonNesting} from "../../src/responses/jsonNesting.js";
import {refusal} from "../helpers/refusal.js";

/** A value nested `levels` deep, built by a loop (no recursion here either). */
function nested(levels: number, wrap: (inner: unknown) => unknown): unknown {
    let value: unknown = "leaf";
    for (let level = 0; level < levels; level++)
        value = wrap(value);
    return value;
}

describe("checkJsonNesting", () => {
    it("accepts exactly maxJsonNesting levels and refuses one more, naming the parameter", () => {
        const body = (levels: number) => ({input: nested(levels - 1, (inner) => [inner])});
        checkJsonNesting(body(maxJsonNesting));
        const error = refusal(() => checkJsonNesting(body(maxJsonNesting + 1)));
        assert.equal(error.status, 400);
        assert.equal(error.code, "nesting_too_deep");
        assert.equal(error.param, "input[0][0]");
    });

    it("walks a million levels without overflowing the stack", () => {
        const error = refusal(() => checkJsonNesting({metadata: nested(1_000_000, (a) => ({a}))}));
        assert.equal(error.param, "metadata.a.a");
    });

    it("names a given parameter, and none for a top-level array", () => {
        assert.equal(refusal(() => checkJsonNesting(nested(10, (a) => ({a})), 5, "text.format.schema")).param, "text.format.schema");
        assert.equal(refusal(() => checkJsonNesting(nested(10, (a) => [a]), 5)).param, "[0][0][0]");
    });
});

describe("parseCreateRequest bounds schema nesting itself (whatever transport sent the body)", () => {
    const deepSchema = (levels: number, strict: boolean) => nested(levels, (inner) => ({
        type: "object", properties: {a: inner}, ...(strict ? {required: ["a"], additionalProperties: false} : {})
    }));

    it("refuses a deep function tool schema, strict or not, and a deep text.format.schema, naming each", () => {
        for (const strict of [false, true]) {
            const error = refusal(
                () => parseCreateRequest({
                    input: "x", tools: [{type: "function", name: "f", strict, parameters: deepSchema(100_000, strict)}]
                })
            );
            assert.equal(error.code, "nesting_too_deep");
            assert.equal(error.param, "tools[0].parameters");
        }
        const format = refusal(
            () => parseCreateRequest({
                input: "x", text: {format: {type: "json_schema", name: "x", strict: true, schema: deepSchema(100_000, true)}}
            })
        );
        assert.equal(format.param, "text.format.schema");
    });

    it("refuses deep data under an annotation the schema rules do not descend into", () => {
        const schema = {type: "object", properties: {}, required: [], additionalProperties: false, default: nested(100_000, (a) => ({a}))};
        const error = refusal(
            () => parseCreateRequest({input: "x", text: {format: {type: "json_schema", name: "x", strict: true, schema}}})
        );
        assert.equal(error.code, "nesting_too_deep");
        assert.equal(error.param, "text.format.schema");
    });
});
