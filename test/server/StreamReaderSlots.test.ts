import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {ApiError} from "../../src/protocol/errors.js";
import {StreamReaderSlots} from "../../src/server/StreamReaderSlots.js";

describe("StreamReaderSlots", () => {
    it("bounds readers per key and in total with 429, and frees slots idempotently", () => {
        const slots = new StreamReaderSlots({maxReaders: 3, maxReadersPerOwner: 2});
        const a1 = slots.acquire("a");
        slots.acquire("a");
        assert.throws(() => slots.acquire("a"), (error: ApiError) => error.status === 429 && error.code === "rate_limit_exceeded");
        slots.acquire("b");
        assert.throws(() => slots.acquire("c"), (error: ApiError) => error.status === 429);
        a1();
        a1();
        assert.equal(slots.active, 2);
        slots.acquire("c");
        assert.equal(slots.active, 3);
    });
});
