import assert from "node:assert/strict";
import {describe, it} from "node:test";
import type {ResponseObject} from "../../src/protocol/wire.js";
import {ResponseStore} from "../../src/store/ResponseStore.js";

let counter = 0;
const response = (text = "x"): ResponseObject => ({
    id: `resp_${++counter}`, object: "response", status: "completed",
    output: [{type: "message", id: `msg_${counter}`, status: "completed", role: "assistant", content: [{type: "output_text", text, annotations: []}]}]
}) as unknown as ResponseObject;

describe("ResponseStore per-key quotas", () => {
    it("evicts the key's own least recently used responses beyond its entry quota, leaving other keys alone", () => {
        const store = new ResponseStore({ownerMaxEntries: 2});
        const other = response();
        store.put("b", other, []);
        const [one, two, three] = [response(), response(), response()];
        store.put("a", one, []);
        store.put("a", two, []);
        store.get("a", one.id);
        store.put("a", three, []);
        assert.ok(store.has("a", one.id), "recently read survives");
        assert.equal(store.has("a", two.id), false);
        assert.ok(store.has("a", three.id));
        assert.ok(store.has("b", other.id));
        assert.equal(store.stats().evictions, 1);
    });

    it("evicts beyond the key's byte quota and tracks bytes back to zero", () => {
        const store = new ResponseStore({ownerMaxBytes: 3000});
        const ids = [];
        for (let index = 0; index < 4; index++) {
            const entry = response("y".repeat(1000) + index);
            ids.push(entry.id);
            store.put("a", entry, []);
        }
        assert.equal(store.has("a", ids[0]!), false);
        assert.ok(store.has("a", ids[3]!));
        store.clear();
        assert.equal(store.stats().bytes, 0);
        const after = response("z".repeat(1200));
        store.put("a", after, []);
        assert.ok(store.has("a", after.id), "the quota counts only what the key still holds");
    });
});
