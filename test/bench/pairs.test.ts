import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {alternating, median, quantile} from "../../bench/pairs.js";

describe("benchmark statistics", () => {
    it("the median of an even count is the mean of its two middle values", () => {
        assert.equal(median([0.5, 1.5]), 1);
        assert.equal(median([4, 1, 3, 2]), 2.5);
        assert.equal(median([3, 1, 2]), 2);
        assert.equal(median([7]), 7);
    });

    it("quantiles pick a measured value (the spread printed beside a figure)", () => {
        assert.equal(quantile([4, 1, 3, 2, 5], 0.25), 2);
        assert.equal(quantile([4, 1, 3, 2, 5], 0.75), 4);
    });

    it("alternating pairs swap their order on odd pairs and always return [a, b]", async () => {
        const order: string[] = [];
        const a = async () => (order.push("a"), "A");
        const b = async () => (order.push("b"), "B");
        assert.deepEqual(await alternating(0, a, b), ["A", "B"]);
        assert.deepEqual(await alternating(1, a, b), ["A", "B"]);
        assert.deepEqual(order, ["a", "b", "b", "a"]);
    });
});
