import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {maxJsonNesting} from "../../../src/responses/jsonNesting.js";
import {JsonContainerCounter} from "../../../src/server/middleware/jsonValueCount.js";

/** Counts `{` and `[` of a value the slow, obvious way: walking the parsed value. */
function containersOf(value: unknown): number {
    if (Array.isArray(value))
        return 1 + value.reduce((sum: number, item) => sum + containersOf(item), 0);
    if (value !== null && typeof value === "object")
        return 1 + Object.values(value).reduce((sum: number, item) => sum + containersOf(item), 0);
    return 0;
}

/** The counter after the whole body in one chunk. */
function counted(text: string): JsonContainerCounter {
    const counter = new JsonContainerCounter();
    counter.feed(Buffer.from(text));
    return counter;
}

/** Feeds `text` in chunks of `size` bytes. */
function countInChunks(text: string, size: number): number {
    const bytes = Buffer.from(text);
    const counter = new JsonContainerCounter();
    for (let start = 0; start < bytes.length; start += size)
        counter.feed(bytes.subarray(start, start + size));
    return counter.containers;
}

const tricky = ["{[", "\\", "\\\"{", "a\\\\", "\"[[[\"", "x".repeat(40) + "\\\"" + "{".repeat(40), "é{ü[", "", "\\\\\\\\\"[", "]}\\"];
const value = {messages: tricky.map((content, index) => ({role: "user", content, parts: [[index], {}]})), nested: [[[{}]]]};

describe("JsonContainerCounter", () => {
    it("counts the containers outside strings, whatever the strings hold", () => {
        assert.equal(containersOf(value), 46);
        assert.equal(counted(JSON.stringify(value)).containers, 46);
    });

    it("counts the same however the body is cut into chunks (escapes and backslash runs across chunk edges)", () => {
        const text = JSON.stringify(value);
        for (let size = 1; size <= 64; size++)
            assert.equal(countInChunks(text, size), 46, `chunks of ${size} bytes`);
    });

    it("a long string is crossed whole, escaped quotes and backslashes included", () => {
        const long = "a".repeat(10_000) + "\\\"{[" + "\\\\" + "b".repeat(100);
        assert.equal(counted(JSON.stringify({input: long, tail: [{}]})).containers, 3);
    });

    it("a body nested past the nesting limit is flagged (the reader refuses it there); one deep item lifts no count", () => {
        const deep = counted("[".repeat(maxJsonNesting + 1) + "]".repeat(maxJsonNesting + 1));
        assert.equal(deep.tooDeep, true);
        // The audit's body: one 130-deep item, then containers past the count limit, all still counted.
        const deepThenMany = counted(`[${"[".repeat(130)}${"]".repeat(130)}${",[]".repeat(200)}]`);
        assert.equal(deepThenMany.tooDeep, true);
        assert.equal(deepThenMany.exceeds(100), true);
        const deepest = counted("[".repeat(maxJsonNesting) + "]".repeat(maxJsonNesting));
        assert.equal(deepest.containers, maxJsonNesting);
        assert.equal(deepest.exceeds(maxJsonNesting - 1), true);
        assert.equal(deepest.exceeds(maxJsonNesting), false);
    });

    it("an unterminated string ends the count", () => {
        assert.equal(counted("[{}, \"{{{{{{{{{{{{{{{{{{{{").containers, 2);
    });
});
