import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {nativeKeyCacheType, usableKeyCacheType} from "../../../../src/engine/llama/runtime/nativeKeyCacheType.js";

/** A model as `usableKeyCacheType` reads it: its GGUF architecture metadata only. */
const model = (architectureMetadata: object) => ({fileInfo: {architectureMetadata}}) as unknown as Parameters<typeof usableKeyCacheType>[1];

describe("usableKeyCacheType", () => {
    it("gives f16 when f16 is asked, whatever the model", () => {
        assert.deepEqual(usableKeyCacheType("f16", model({})), {type: "f16", note: null});
    });

    it("gives q8_0 when each head's keys fill 32-value blocks, from key_length or width / heads", () => {
        assert.equal(usableKeyCacheType("q8_0", model({attention: {head_count: 9, key_length: 64}})).type, "q8_0");
        assert.equal(usableKeyCacheType("q8_0", model({embedding_length: 576, attention: {head_count: 9}})).type, "q8_0");
        assert.equal(usableKeyCacheType("q8_0", model({embedding_length: 4096, attention: {head_count: 32}})).type, "q8_0");
    });

    it("keeps f16, with why, when heads do not fill blocks or their size is unknown", () => {
        const small = usableKeyCacheType("q8_0", model({embedding_length: 64, attention: {head_count: 8}}));
        assert.deepEqual(small,
            {type: "f16", note: "q8_0 keys need attention heads of a multiple of 32 values; this model's hold 8: keys stay f16"});
        assert.equal(usableKeyCacheType("q8_0", model({attention: {head_count: 4, key_length: 80}})).type, "f16");
        assert.match(usableKeyCacheType("q8_0", model({})).note ?? "", /hold an unknown number/);
    });

    it("is spelled for node-llama-cpp as its GgmlType names", () => {
        assert.equal(nativeKeyCacheType("f16"), "F16");
        assert.equal(nativeKeyCacheType("q8_0"), "Q8_0");
    });
});
