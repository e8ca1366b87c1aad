import assert from "node:assert/strict";
import {describe, it} from "node:test";
import type {Item, ResponseObject} from "../../src/protocol/wire.js";
import {ResponseStore} from "../../src/store/ResponseStore.js";

let counter = 0;
function message(text: string, role: "user" | "assistant" = "user"): Item {
    return role === "user"
        ? {type: "message", id: `msg_${++counter}`, status: "completed", role, content: [{type: "input_text", text}]}
        : {type: "message", id: `msg_${++counter}`, status: "completed", role, content: [{type: "output_text", text, annotations: []}]};
}
function response(id: string, output: Item[] = [], createdAt = counter): ResponseObject {
    return {id, object: "response", created_at: createdAt, status: "completed", output} as unknown as ResponseObject;
}

describe("ResponseStore", () => {
    it("isolates owners: another owner's id is unknown", () => {
        const store = new ResponseStore();
        store.put("alice", response("resp_1"), [message("hi")]);
        assert.ok(store.get("alice", "resp_1"));
        assert.equal(store.get("bob", "resp_1"), undefined);
        assert.equal(store.delete("bob", "resp_1"), false);
        assert.ok(store.get("alice", "resp_1"), "bob's delete did nothing");
    });

    it("evicts the least recently used entry beyond maxEntries", () => {
        const store = new ResponseStore({maxEntries: 2});
        store.put("o", response("a"), [message("a")]);
        store.put("o", response("b"), [message("b")]);
        store.get("o", "a");
        store.put("o", response("c"), [message("c")]);
        assert.ok(store.has("o", "a"), "a was used recently");
        assert.equal(store.has("o", "b"), false, "b was the least recently used");
        assert.ok(store.has("o", "c"));
        assert.equal(store.stats().evictions, 1);
    });

    it("evicts by bytes, and an entry larger than the budget does not stay", () => {
        const store = new ResponseStore({maxBytes: 2000});
        store.put("o", response("small"), [message("x".repeat(100))]);
        store.put("o", response("big"), [message("y".repeat(5000))]);
        assert.equal(store.has("o", "big"), false);
        assert.ok(store.stats().bytes <= 2000);
    });

    it("expires entries a TTL after they were stored, even when read", () => {
        let now = 1_000_000;
        const store = new ResponseStore({ttlSeconds: 10, now: () => now});
        store.put("o", response("r"), [message("hi")]);
        now += 9_000;
        assert.ok(store.get("o", "r"));
        now += 1_000;
        assert.equal(store.get("o", "r"), undefined);
        assert.equal(store.stats().expirations, 1);
        assert.equal(store.stats().bytes, 0, "expired blocks are freed");
    });

    it("shares item blocks along a chain: bytes grow with new items, not with history length", () => {
        const store = new ResponseStore();
        let history: Item[] = [];
        const growth: number[] = [];
        for (let turn = 0; turn < 20; turn++) {
            const user = message(`question ${turn} ${"q".repeat(200)}`);
            const answer = message(`answer ${turn} ${"a".repeat(200)}`, "assistant");
            const before = store.stats().bytes;
            history = [...history, user];
            store.put("o", response(`resp_${turn}`, [answer]), history);
            history = [...history, answer];
            growth.push(store.stats().bytes - before);
        }
        // With flat copies turn 19 would add ~20x what turn 1 adds; with shared blocks it adds about the same.
        assert.ok(growth[19]! < growth[1]! * 1.5, `growth per turn: ${growth.join(", ")}`);
    });

    it("deleting an ancestor keeps its descendants whole", () => {
        const store = new ResponseStore();
        const first = message("first");
        const firstAnswer = message("first answer", "assistant");
        store.put("o", response("r1", [firstAnswer]), [first]);
        const second = message("second");
        store.put("o", response("r2", [message("second answer", "assistant")]), [first, firstAnswer, second]);
        assert.ok(store.delete("o", "r1"));
        const kept = store.get("o", "r2")!;
        assert.deepEqual(kept.inputItems.map((item) => item.id), [first.id, firstAnswer.id, second.id]);
        assert.deepEqual(store.findItem("o", firstAnswer.id), firstAnswer);
    });

    it("resolves stored item ids per owner", () => {
        const store = new ResponseStore();
        const answer = message("stored answer", "assistant");
        store.put("o", response("r", [answer]), [message("q")]);
        assert.deepEqual(store.findItem("o", answer.id), answer);
        assert.equal(store.findItem("other", answer.id), undefined);
    });

    it("maxEntries 0 disables storage", () => {
        const store = new ResponseStore({maxEntries: 0});
        assert.equal(store.put("o", response("r"), []), false);
        assert.equal(store.has("o", "r"), false);
    });
});
