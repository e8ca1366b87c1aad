import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {leadingPathPastDepth} from "../../../src/server/middleware/jsonPathAtDepth.js";
import {checkJsonNesting, paramOfPath} from "../../../src/responses/jsonNesting.js";

/** The parameter the check of the parsed body names. */
function parsedParam(body: string, maxDepth: number): string | null {
    try {
        checkJsonNesting(JSON.parse(body) as unknown, maxDepth);
    } catch (error) {
        return (error as {param: string | null}).param;
    }
    return null;
}

const nested = (levels: number) => "[".repeat(levels) + "]".repeat(levels);

describe("the path to the first container past the nesting limit, from the body's text", () => {
    it("names the parameter as the check of the parsed body does", () => {
        const body = `{"model": "m", "input": "a \\"quoted\\" {[ text", `
            + `"tools": [{"type": "function", "name": "f", "parameters": ${nested(12)}}]}`;
        assert.deepEqual(leadingPathPastDepth(body, 8, 3), ["tools", 0, "parameters"]);
        assert.equal(paramOfPath(leadingPathPastDepth(body, 8, 3)!), parsedParam(body, 8));
    });

    it("counts array indexes and escaped keys; stops at the first deep container", () => {
        const body = `{"input": [{"role": "user"}, {"c\\"k": [${nested(3)}, ${nested(20)}]}]}`;
        assert.deepEqual(leadingPathPastDepth(body, 6, 3), ["input", 1, "c\"k"]);
        assert.equal(paramOfPath(leadingPathPastDepth(body, 6, 3)!), parsedParam(body, 6));
    });

    it("null when nothing is deeper, or the text ends inside a string first", () => {
        assert.equal(leadingPathPastDepth(`{"a": ${nested(5)}}`, 6, 3), null);
        assert.equal(leadingPathPastDepth(`{"a": "${"[".repeat(50)}`, 6, 3), null);
    });
});
