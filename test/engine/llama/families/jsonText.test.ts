import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {jsonEnd, parseJson} from "../../../../src/engine/llama/families/jsonText.js";

describe("jsonText: where JSON ends, read without throwing", () => {
    it("finds the closing bracket of the object or array at the index, brackets in strings not counted", () => {
        assert.equal(jsonEnd("{\"a\": [1, {\"b\": 2}]} tail", 0), 20);
        assert.equal(jsonEnd("x{\"a\": \"}}\\\"]\"}}", 1), 15);
        assert.equal(jsonEnd("[[]]", 1), 3);
    });

    it("undefined where no object or array starts there, or it does not close", () => {
        assert.equal(jsonEnd("\"a\"", 0), undefined);
        assert.equal(jsonEnd("{\"a\": \"}", 0), undefined);
        assert.equal(jsonEnd("[".repeat(100_000), 0), undefined);
    });

    it("parses JSON, and gives undefined for what is not", () => {
        assert.deepEqual(parseJson("[1]"), {value: [1]});
        assert.deepEqual(parseJson("null"), {value: null});
        assert.equal(parseJson("{a: 1}"), undefined);
    });
});
