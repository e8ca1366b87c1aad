import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {authenticate, ownerOfKey, publicOwner} from "../../../src/server/middleware/auth.js";

const bearer = (key: string) => ({authorization: `Bearer ${key}`});

describe("authenticate", () => {
    it("accepts a configured key as Bearer or x-api-key, with a stable owner per key", () => {
        const keys = ["sk-one", "sk-two"];
        assert.equal(authenticate(bearer("sk-one"), keys), ownerOfKey("sk-one"));
        assert.equal(authenticate({"x-api-key": "sk-two"}, keys), ownerOfKey("sk-two"));
        assert.notEqual(ownerOfKey("sk-one"), ownerOfKey("sk-two"));
        assert.equal(authenticate({}, []), publicOwner, "no keys configured: everyone is the public owner");
    });

    it("refuses missing, wrong and empty keys alike", () => {
        const keys = ["sk-one"];
        assert.equal(authenticate({}, keys), undefined);
        assert.equal(authenticate(bearer("sk-on"), keys), undefined);
        assert.equal(authenticate({"x-api-key": ""}, keys), undefined);
        assert.equal(authenticate({authorization: "Basic sk-one"}, keys), undefined);
    });

    it("follows rotation, whether the key list is replaced or changed in place", () => {
        let keys = ["sk-old"];
        assert.ok(authenticate(bearer("sk-old"), keys));
        keys = ["sk-new"];
        assert.equal(authenticate(bearer("sk-old"), keys), undefined);
        assert.ok(authenticate(bearer("sk-new"), keys));
        keys[0] = "sk-newer";
        assert.equal(authenticate(bearer("sk-new"), keys), undefined, "the remembered digests are checked against the list");
        assert.ok(authenticate(bearer("sk-newer"), keys));
        keys.push("sk-extra");
        assert.ok(authenticate(bearer("sk-extra"), keys));
    });
});
