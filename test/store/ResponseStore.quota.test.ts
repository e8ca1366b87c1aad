import assert from "node:assert/strict";
import {describe, it} from "node:test";
import type {ResponseObject} from "../../src/protocol/wire.js";
import {ResponseStore} from "../../src/store/ResponseStore.js";

let counter = 0;
const response = (text = "x"): ResponseObject => ({
    id: `resp_${++counter}`, object: "response", status: "completed",
    output: [
        {
            type: "message", id: `msg_${counter}`, status: "completed", role: "assistant",
            content: [{type: "output_text", text, annotations: []}]
        }
    ]
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

    it("an expired response does not count against the key's quota: it expires, and no live one is evicted for it", () => {
        let now = 0;
        const store = new ResponseStore({ownerMaxEntries: 2, ttlSeconds: 10, now: () => now});
        const [old, live, next] = [response(), response(), response()];
        store.put("a", old, []);
        now = 5_000;
        store.put("a", live, []);
        now = 6_000;
        store.get("a", old.id); // the oldest by use is now `live`, though `old` expires first
        now = 11_000;
        store.put("a", next, []);
        assert.ok(store.has("a", live.id), "live was within the quota once the expired one was gone");
        assert.ok(store.has("a", next.id));
        assert.equal(store.has("a", old.id), false);
        assert.deepEqual([store.stats().evictions, store.stats().expirations], [0, 1]);
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
