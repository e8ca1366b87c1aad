import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {BoundedStore, journaledExpiry, restoredExpiry, type BoundedEntry, type RemovalReason} from "../../src/store/BoundedStore.js";
import type {StoreBounds} from "../../src/store/storeBounds.js";

type Entry = BoundedEntry & {label?: string};

const defaults = {maxEntries: 100, maxBytes: 1_000_000, ttlSeconds: 0};

/** A core with a clock to move and a log of what it released and why. */
function core(bounds: StoreBounds = {}) {
    const clock = {now: 0};
    const released: Array<[string, RemovalReason]> = [];
    const store = new BoundedStore<Entry>({now: () => clock.now, ...bounds}, defaults,
        (entry, reason) => released.push([entry.id, reason]));
    const add = (owner: string, id: string, bytes = 10) => {
        const entry: Entry = {id, owner, bytes, expiresAt: store.expiry()};
        store.add(entry);
        store.enforce([owner]);
        return entry;
    };
    const ids = () => store.values().map((entry) => entry.id);
    return {store, clock, released, add, ids};
}

describe("BoundedStore (the core of the response and conversation stores)", () => {
    it("takes the store's defaults where the bounds leave them unset; per-key quotas default to off", () => {
        const {store} = core();
        assert.deepEqual([store.maxEntries, store.maxBytes, store.ttlSeconds, store.ownerMaxEntries, store.ownerMaxBytes],
            [100, 1_000_000, 0, 0, 0]);
        assert.equal(store.enabled, true);
        assert.equal(new BoundedStore<Entry>({maxEntries: 0}, defaults, () => {}).enabled, false, "0 entries turns a store off");
    });

    it("evicts the least recently used beyond the entry bound; a use moves a record to the end", () => {
        const {store, add, ids, released} = core({maxEntries: 2});
        add("a", "one");
        add("a", "two");
        assert.ok(store.use("a", "one"));
        add("a", "three");
        assert.deepEqual(ids(), ["one", "three"]);
        assert.deepEqual(released, [["two", "evict"]]);
        assert.equal(store.stats().evictions, 1);
    });

    it("evicts beyond the byte bound, counting shared bytes charged apart, and returns to zero", () => {
        const {store, add, ids} = core({maxBytes: 100});
        add("a", "one", 40);
        add("b", "two", 40);
        store.charge("b", 15);
        assert.equal(store.stats().bytes, 95);
        add("a", "three", 10);
        assert.deepEqual(ids(), ["two", "three"], "105 bytes > 100: the oldest went");
        store.charge("b", -15);
        for (const entry of store.values())
            store.remove(entry.id, null);
        assert.deepEqual(store.stats(), {entries: 0, bytes: 0, hits: 0, misses: 0, writes: 0, evictions: 1, expirations: 0, deletions: 0});
    });

    it("applies a key's quotas to that key's own records only", () => {
        const {add, ids} = core({ownerMaxEntries: 2, ownerMaxBytes: 50});
        add("b", "b1");
        add("a", "a1");
        add("a", "a2");
        add("a", "a3");
        assert.deepEqual(ids(), ["b1", "a2", "a3"], "a's entry quota");
        add("a", "big", 35);
        assert.deepEqual(ids(), ["b1", "a3", "big"], "a's byte quota: a2 + a3 + big = 55 > 50, a2 went");
    });

    it("counts a resize against the bounds of the owner and the store", () => {
        const {store, add, ids} = core({maxBytes: 100, ownerMaxBytes: 60});
        const one = add("a", "one", 30);
        add("a", "two", 20);
        store.resize(one, 20);
        store.enforce(["a"]);
        assert.deepEqual(ids(), ["two"], "one grew to 50: a held 70 > 60");
        assert.equal(store.stats().bytes, 20);
    });

    it("expires by TTL: a lookup misses and removes, a sweep removes, a peek leaves it", () => {
        const {store, clock, add, released} = core({ttlSeconds: 10});
        add("a", "one");
        add("a", "two");
        clock.now = 10_000;
        assert.equal(store.peek("one"), undefined);
        assert.equal(store.size, 2, "a peek removes nothing");
        assert.equal(store.use("a", "one"), undefined);
        store.sweepExpired();
        assert.equal(store.size, 0);
        assert.deepEqual(released, [["one", "expire"], ["two", "expire"]]);
        assert.deepEqual([store.stats().expirations, store.stats().misses], [2, 1]);
    });

    it("keeps owners apart: another key's lookup, use and delete miss", () => {
        const {store, add} = core();
        add("a", "one");
        assert.equal(store.find("b", "one"), undefined);
        assert.equal(store.use("b", "one"), undefined);
        assert.equal(store.delete("b", "one"), false);
        assert.ok(store.peek("one"), "peek sees every owner");
        assert.ok(store.use("a", "one"));
        assert.equal(store.delete("a", "one"), true);
        assert.deepEqual(store.stats(), {entries: 0, bytes: 0, hits: 1, misses: 1, writes: 0, evictions: 0, expirations: 0, deletions: 1});
    });

    it("a removal on the store's own account is neither counted nor given a reason", () => {
        const {store, add, released} = core();
        add("a", "one");
        store.remove("one", null);
        store.remove("one", "delete");
        assert.deepEqual(released, [["one", null]], "a second removal finds nothing");
        assert.equal(store.stats().deletions, 0);
    });

    it("restores journaled records in their order, continues their use numbers, and applies today's bounds on attach", () => {
        const {store, released, ids} = core({maxEntries: 2});
        const writes: string[] = [];
        for (const [id, used] of [["old", 3], ["mid", 7], ["new", 9]] as const)
            store.restore({id, owner: "a", bytes: 1, expiresAt: Infinity}, used);
        assert.equal(store.journal, null);
        assert.deepEqual(released, [], "nothing is enforced before the journal is attached");
        store.attach({put: (key) => writes.push(`put ${key}`), del: (key) => writes.push(`del ${key}`), written: async () => undefined});
        assert.deepEqual(ids(), ["mid", "new"]);
        assert.deepEqual(released, [["old", "evict"]]);
        assert.equal(store.nextUse(), 10);
        store.journal!.put("x", 1);
        assert.deepEqual(writes, ["put x"]);
    });

    it("writes an endless expiry as null to a journal and reads it back as Infinity", () => {
        assert.equal(journaledExpiry(Infinity), null);
        assert.equal(journaledExpiry(1234), 1234);
        assert.equal(restoredExpiry(null), Infinity);
        assert.equal(restoredExpiry(1234), 1234);
        assert.equal(JSON.parse(JSON.stringify({e: journaledExpiry(Infinity)})).e, null);
    });
});
