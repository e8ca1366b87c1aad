import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {nestsDeeperThan} from "../../../../src/engine/llama/families/callNesting.js";

/** An array nested `depth` levels deep in all. */
function nested(depth: number): unknown {
    let value: unknown = [];
    for (let level = 1; level < depth; level++)
        value = [value];
    return value;
}

describe("callNesting: how deep a call's arguments nest", () => {
    it("counts objects and arrays, the outermost being level 1; scalars add nothing", () => {
        assert.equal(nestsDeeperThan({a: [{b: "text"}]}, 3), false);
        assert.equal(nestsDeeperThan({a: [{b: []}]}, 3), true);
        assert.equal(nestsDeeperThan("text", 0), false);
        assert.equal(nestsDeeperThan(nested(128), 128), false);
        assert.equal(nestsDeeperThan(nested(129), 128), true);
    });

    it("walks no deeper than the bound, so any depth is answered without overflowing the stack", () => {
        assert.equal(nestsDeeperThan(nested(200_000), 128), true);
    });
});
