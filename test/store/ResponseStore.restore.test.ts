import assert from "node:assert/strict";
import {describe, it} from "node:test";
import type {ResponseObject} from "../../src/protocol/wire.js";
import {ResponseStore, type ResponseStoreChange} from "../../src/store/ResponseStore.js";

/** A journal that keeps what a store writes in a map (what the durable database does on disk). */
function mapJournal() {
    const entries = new Map<string, unknown>();
    return {
        entries, journal: {
            put: (key: string, value: unknown) => void entries.set(key, value), del: (key: string) => void entries.delete(key),
            written: async () => undefined
        }
    };
}

describe("ResponseStore restored from a journal", () => {
    it("tells its listeners the records came back, so a view that listed the empty store lists them", () => {
        const {entries, journal} = mapJournal();
        const before = new ResponseStore();
        before.persistTo(journal, new Map());
        before.put("owner", {id: "resp_1", object: "response", output: [], status: "completed"} as unknown as ResponseObject, []);

        const after = new ResponseStore();
        const changes: ResponseStoreChange[] = [];
        after.onChange((change) => changes.push(change));
        after.persistTo(mapJournal().journal, entries);
        assert.deepEqual(changes, [{type: "restore"}]);
        assert.equal(after.get("owner", "resp_1")?.response.id, "resp_1");
    });
});
