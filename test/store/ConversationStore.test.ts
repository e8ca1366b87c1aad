import assert from "node:assert/strict";
import {describe, it} from "node:test";
import type {Item} from "../../src/protocol/wire.js";
import {ConversationStore} from "../../src/store/ConversationStore.js";

const message = (id: string,
    text = "hello"): Item => ({type: "message", id, status: "completed", role: "user", content: [{type: "input_text", text}]});

describe("ConversationStore", () => {
    it("creates, appends, reads and deletes items, per owner", () => {
        const store = new ConversationStore();
        const conversation = store.create("a", [message("m1")], {topic: "x"});
        assert.match(conversation.id, /^conv_/);
        assert.equal(conversation.object, "conversation");
        assert.ok(store.append("a", conversation.id, [message("m2")]));
        assert.deepEqual(store.items("a", conversation.id)!.map((item) => item.id), ["m1", "m2"]);
        assert.equal(store.items("b", conversation.id), undefined, "another key gets nothing");
        assert.equal(store.append("b", conversation.id, [message("m3")]), false);
        assert.equal(store.deleteItem("a", conversation.id, "m1"), "deleted");
        assert.equal(store.deleteItem("a", conversation.id, "m1"), "no_item");
        assert.equal(store.deleteItem("b", conversation.id, "m2"), "no_conversation");
        assert.deepEqual(store.updateMetadata("a", conversation.id, {topic: "y"})!.metadata, {topic: "y"});
        assert.equal(store.delete("b", conversation.id), false);
        assert.equal(store.delete("a", conversation.id), true);
        assert.equal(store.get("a", conversation.id), undefined);
        const stats = store.stats();
        assert.equal(stats.entries, 0);
        assert.equal(stats.bytes, 0, "bytes return to zero once everything is gone");
        assert.equal(stats.deletions, 1);
    });

    it("expires a conversation after its idle TTL; use refreshes it", () => {
        let now = 0;
        const store = new ConversationStore({ttlSeconds: 10, now: () => now});
        const conversation = store.create("a", [], {});
        now = 9_000;
        assert.ok(store.get("a", conversation.id));
        now = 18_000;
        assert.ok(store.get("a", conversation.id), "reading it refreshed the TTL");
        now = 28_001;
        assert.equal(store.get("a", conversation.id), undefined);
        assert.equal(store.stats().expirations, 1);
    });

    it("evicts the least recently used beyond entries and bytes", () => {
        const store = new ConversationStore({maxEntries: 2});
        const first = store.create("a", [], {});
        const second = store.create("a", [], {});
        store.get("a", first.id);
        store.create("a", [], {});
        assert.ok(store.get("a", first.id));
        assert.equal(store.get("a", second.id), undefined);
        assert.equal(store.stats().evictions, 1);

        const small = new ConversationStore({maxBytes: 2000});
        const one = small.create("a", [message("m1", "x".repeat(800))], {});
        small.create("a", [message("m2", "x".repeat(800))], {});
        small.create("a", [message("m3", "x".repeat(800))], {});
        assert.equal(small.get("a", one.id), undefined);
        assert.ok(small.stats().bytes <= 2000);
    });

    it("per-key quotas evict the key's own oldest conversations only", () => {
        const store = new ConversationStore({ownerMaxEntries: 1});
        const other = store.create("b", [], {});
        const first = store.create("a", [], {});
        const second = store.create("a", [], {});
        assert.equal(store.get("a", first.id), undefined);
        assert.ok(store.get("a", second.id));
        assert.ok(store.get("b", other.id));
    });

    it("is disabled with 0 entries", () => {
        assert.equal(new ConversationStore({maxEntries: 0}).enabled, false);
    });
});
