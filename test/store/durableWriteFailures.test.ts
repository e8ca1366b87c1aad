import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {afterEach, describe, it} from "node:test";
import {ClassicLevel} from "classic-level";
import {ApiError} from "../../src/protocol/errors.js";
import type {Item, ResponseObject} from "../../src/protocol/wire.js";
import {keptAsideFolders} from "../../src/store/durable/asideFolders.js";
import {StoreDatabase, StoreOpenError} from "../../src/store/durable/StoreDatabase.js";
import {ResponseStore} from "../../src/store/ResponseStore.js";
import {diskFull, failingPort, ioError, permissionDenied} from "../helpers/failingDisk.js";

let counter = 0;
function message(text: string): Item {
    return {type: "message", id: `msg_${++counter}`, status: "completed", role: "user", content: [{type: "input_text", text}]};
}
function response(id: string): ResponseObject {
    return {id, object: "response", created_at: ++counter, status: "completed", output: []} as unknown as ResponseObject;
}
function tempDir(): string {
    return fs.mkdtempSync(path.join(os.tmpdir(), "lr-disk-"));
}

async function openResponses(dir: string, lines: string[] = []) {
    const db = await StoreDatabase.open(dir, (line) => lines.push(line));
    const store = new ResponseStore();
    store.persistTo(db.journal("responses/"), db.entries("responses/"));
    return {db, store, close: () => db.close()};
}

async function keysOnDisk(dir: string, prefix: string): Promise<string[]> {
    const db = new ClassicLevel<string, string>(path.join(dir, "store"));
    const keys = await db.keys({gte: prefix, lt: `${prefix}\xff`}).all();
    await db.close();
    return keys;
}

async function waitUntil(condition: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 15_000;
    while (!condition()) {
        assert.ok(Date.now() < deadline, `timed out waiting until ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
    }
}

const refusal = (status: number, code: string, words: RegExp, dir: string) => (error: unknown) =>
    error instanceof ApiError && error.status === status && error.code === code && error.message.includes(dir) && words.test(error.message);

const restore: Array<() => void> = [];
/** A failing port that is put back after the test, whatever happens in it. */
function failing(...args: Parameters<typeof failingPort>): ReturnType<typeof failingPort> {
    const port = failingPort(...args);
    restore.push(port.restore);
    return port;
}
afterEach(() => {
    for (const undo of restore.splice(0))
        undo();
});

describe("durable store: a disk that refuses writes", () => {
    it("a failed batch is retried and written; its waiter resolves only then, and both are logged", async () => {
        const dir = tempDir();
        const lines: string[] = [];
        const {store, close} = await openResponses(dir, lines);
        let failures = 2;
        const port = failing("_batch", () => (failures-- > 0 ? ioError() : null));
        store.put("o", response("a"), [message("a")]);
        await store.written();
        assert.equal(port.failed, 2);
        await close();
        assert.deepEqual(await keysOnDisk(dir, "responses/r/"), ["responses/r/a"], "written by a retry, not dropped");
        assert.equal(lines.filter((line) => /failed \(IO error: 000005\.log: Input\/output error\)/.test(line)).length, 1);
        assert.equal(lines.filter((line) => /works again \(after 2 failed attempts\)/.test(line)).length, 1);
    });

    it("when the disk keeps refusing, waits are refused (507 full, else 503, naming folder and cause); changes land later", async () => {
        const dir = tempDir();
        const {db, store, close} = await openResponses(dir);
        let error: () => Error = () => diskFull();
        const port = failing("_batch", () => error());
        store.put("o", response("a"), [message("a")]);
        await assert.rejects(store.written(), refusal(507, "insufficient_storage", /No space left on device/, dir));
        assert.ok(db.unavailable);
        store.put("o", response("b"), [message("b")]);
        const attempts = port.failed;
        await assert.rejects(store.written(), refusal(507, "insufficient_storage", /No space left on device/, dir));
        assert.equal(port.failed, attempts, "refused at once while the disk keeps refusing, without an attempt of its own");

        error = ioError;
        await waitUntil(() => port.failed > attempts, "an attempt met the I/O error");
        await assert.rejects(store.written(), (refused: unknown) => refusal(503, "storage_unavailable", /Input\/output error/, dir)(refused)
            && (refused as ApiError).retryAfterSeconds === 5 && (refused as ApiError).type === "service_unavailable_error");

        port.restore();
        await waitUntil(() => !db.unavailable, "a retry worked");
        await store.written();
        await close();
        assert.deepEqual(await keysOnDisk(dir, "responses/r/"), ["responses/r/a", "responses/r/b"]);
    });

    it("logs each distinct cause once, not once per batch in a flood, and says when writing works again", async () => {
        const dir = tempDir();
        const lines: string[] = [];
        const {db, store, close} = await openResponses(dir, lines);
        let file = 10;
        let error: () => Error = () => diskFull(`0000${file++}.log`);
        const port = failing("_batch", () => error());
        for (let index = 0; index < 40; index++) {
            store.put("o", response(`r${index}`), [message(`${index}`)]);
            await store.written().catch(() => undefined);
        }
        error = ioError;
        const attempts = port.failed;
        await waitUntil(() => port.failed > attempts + 1, "two attempts met the I/O error");
        port.restore();
        await waitUntil(() => !db.unavailable, "a retry worked");
        await close();
        const failed = lines.filter((line) => line.includes("failed ("));
        assert.equal(failed.length, 2, failed.join("\n"));
        assert.match(failed[0]!, /No space left on device\); \d+ changes wait and are retried, and requests that store data get 507/);
        assert.match(failed[1]!, /Input\/output error\).*get 503 storage_unavailable/);
        assert.equal(lines.filter((line) => line.includes("works again")).length, 1);
        assert.equal((await keysOnDisk(dir, "responses/r/")).length, 40, "the flood was written in the end");
    });

    it("a refused delete is retried in order with later changes of its key; what it deleted stays deleted after a restart", async () => {
        const dir = tempDir();
        const first = await openResponses(dir);
        for (const id of ["a", "b", "c"])
            first.store.put("o", response(id), [message(id)]);
        await first.store.written();
        const port = failing("_batch", () => ioError());
        first.store.delete("o", "a");
        first.store.delete("o", "b");
        await new Promise((resolve) => setImmediate(resolve));
        first.store.put("o", response("b"), [message("b again")]);
        first.store.put("o", response("d"), [message("d")]);
        first.store.delete("o", "d");
        await assert.rejects(first.store.written(), refusal(503, "storage_unavailable", /Input\/output error/, dir));
        assert.equal(first.store.has("o", "a"), false, "memory keeps it deleted meanwhile");
        port.restore();
        await waitUntil(() => !first.db.unavailable, "a retry worked");
        await first.close();

        const second = await openResponses(dir);
        assert.deepEqual(second.store.list("o").map((entry) => entry.id).sort(), ["b", "c"], "a, d stay deleted; b was put after");
        const input = second.store.get("o", "b")?.inputItems as unknown as Array<{content: Array<{text: string}>}>;
        assert.deepEqual(input.map((item) => item.content[0]!.text), ["b again"]);
        await second.close();
    });

    it("a clean stop while the disk still refuses makes a last attempt and logs the deletions left unwritten", async () => {
        const dir = tempDir();
        const lines: string[] = [];
        const first = await openResponses(dir, lines);
        first.store.put("o", response("a"), [message("a")]);
        await first.store.written();
        const port = failing("_batch", () => ioError());
        first.store.delete("o", "a");
        const attempts = port.failed;
        await first.close();
        assert.ok(port.failed > attempts, "the stop tried once more");
        const logged = /closing .* with \d+ changes the disk refused \(\d+ deletions among them: what they deleted is back after a restart/;
        assert.ok(lines.some((line) => logged.test(line)), lines.join("\n"));
        port.restore();
        const second = await openResponses(dir);
        assert.ok(second.store.has("o", "a"), "as logged: the deletion never reached the disk");
        await second.close();
    });

    it("a rewrite whose reopen fails is logged, and writes are refused with 503 and retried until the database opens again", async () => {
        const dir = tempDir();
        const lines: string[] = [];
        const {db, store, close} = await openResponses(dir, lines);
        store.put("o", response("a"), [message("secret")]);
        await store.written();
        const location = path.join(dir, "store");
        let refuse = true;
        const port = failing("_open", (opened) => (refuse && opened === location ? ioError() : null));
        store.clear();
        await assert.rejects(db.purgeDeleted());
        const logged = (line: string) => line.includes(`${location} could not be opened again after its rewrite (`)
            && line.includes("reopening is retried");
        assert.ok(lines.some(logged), lines.join("\n"));
        store.put("o", response("b"), [message("b")]);
        await assert.rejects(store.written(), refusal(503, "storage_unavailable", /Input\/output error/, dir));
        assert.ok(port.failed >= 3, "the reopen was retried");
        refuse = false;
        await waitUntil(() => !db.unavailable, "the database opened again");
        store.put("o", response("c"), [message("c")]);
        await store.written();
        await close();
        const reopened = await openResponses(dir);
        assert.deepEqual(reopened.store.list("o").map((entry) => entry.id).sort(), ["b", "c"]);
        await reopened.close();
    });
});

describe("durable store: opening", () => {
    for (const [what, error] of [
        ["permission denied (EACCES)", permissionDenied],
        ["too many open files (EMFILE)", () => Object.assign(new Error("EMFILE: too many open files, open 'MANIFEST'"), {code: "EMFILE"})]
    ] as const)
        it(`${what}: reported as an open error naming the store, which is not moved aside`, async () => {
            const dir = tempDir();
            const first = await openResponses(dir);
            first.store.put("o", response("a"), [message("a")]);
            await first.close();
            const lines: string[] = [];
            const port = failing("_open", () => error());
            await assert.rejects(StoreDatabase.open(dir, (line) => lines.push(line)),
                (refused: unknown) => refused instanceof StoreOpenError && refused.message.includes(path.join(dir, "store"))
                    && refused.message.includes(error().message) && /it is left as it is/.test(refused.message));
            port.restore();
            assert.deepEqual(fs.readdirSync(dir).filter((name) => name.startsWith("store")), ["store"], "nothing moved aside");
            assert.deepEqual(lines, []);
            const second = await openResponses(dir);
            assert.ok(second.store.has("o", "a"), "the store is whole once the cause is gone");
            await second.close();
        });

    it(`keeps only the newest ${keptAsideFolders} unusable stores moved aside, removing older ones`, async () => {
        const dir = tempDir();
        for (const day of ["01", "02", "03"]) {
            fs.mkdirSync(path.join(dir, `store.unusable-2020-01-${day}T00-00-00-000Z`));
            fs.writeFileSync(path.join(dir, `store.unusable-2020-01-${day}T00-00-00-000Z`, "CURRENT"), "old");
        }
        const first = await openResponses(dir);
        await first.close();
        const store = path.join(dir, "store");
        for (const file of fs.readdirSync(store).filter((name) => name.startsWith("MANIFEST")))
            fs.writeFileSync(path.join(store, file), "garbage that is not a manifest");
        const lines: string[] = [];
        const second = await openResponses(dir, lines);
        await second.close();
        const aside = fs.readdirSync(dir).filter((name) => name.startsWith("store.unusable-")).sort();
        assert.equal(aside.length, keptAsideFolders);
        assert.equal(aside[0], "store.unusable-2020-01-03T00-00-00-000Z", "the newest older one is kept with the new one");
        assert.equal(lines.filter((line) => /removed .*store\.unusable-2020-01-0[12].*an older unusable store/.test(line)).length, 2);
    });
});
