import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {isKeyCacheType, requireKeyCacheType} from "../../src/engine/keyCacheType.js";

describe("KeyCacheType", () => {
    it("reads a key type from text: the two names pass, anything else is refused with the choices", () => {
        assert.ok(isKeyCacheType("f16") && isKeyCacheType("q8_0"));
        assert.ok(!isKeyCacheType("q4_0") && !isKeyCacheType("Q8_0") && !isKeyCacheType(undefined));
        assert.equal(requireKeyCacheType("q8_0", "--cache-type-k"), "q8_0");
        assert.throws(() => requireKeyCacheType("q4_0", "--cache-type-k"), {message: '--cache-type-k must be f16 or q8_0 (got "q4_0")'});
    });
});
