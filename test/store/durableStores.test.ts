import assert from "node:assert/strict";
import {spawn} from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {describe, it} from "node:test";
import {ClassicLevel} from "classic-level";
import type {Item, ResponseObject} from "../../src/protocol/wire.js";
import {BackgroundJobs} from "../../src/responses/background/BackgroundJobs.js";
import {ConversationStore, type ConversationStoreOptions} from "../../src/store/ConversationStore.js";
import {DataFolderLockedError, schemaVersion, StoreDatabase} from "../../src/store/durable/StoreDatabase.js";
import {ResponseStore, type ResponseStoreOptions} from "../../src/store/ResponseStore.js";
import {repoRoot} from "../helpers/paths.js";
import {preparedJob} from "../helpers/preparedJob.js";

let counter = 0;
function message(text: string): Item {
    return {type: "message", id: `msg_${++counter}`, status: "completed", role: "user", content: [{type: "input_text", text}]};
}
function response(id: string, output: Item[] = []): ResponseObject {
    return {id, object: "response", created_at: ++counter, status: "completed", output} as unknown as ResponseObject;
}
function tempDir(): string {
    return fs.mkdtempSync(path.join(os.tmpdir(), "lr-durable-"));
}

/** A response store on a data folder, restored from it, as the host opens one; `close` flushes and releases the folder. */
async function openResponses(dir: string, options: ResponseStoreOptions = {}, log?: (line: string) => void) {
    const db = await StoreDatabase.open(dir, log);
    const store = new ResponseStore(options);
    store.persistTo(db.journal("responses/"), db.entries("responses/"));
    return {db, store, close: () => db.close()};
}

async function openConversations(dir: string, options: ConversationStoreOptions = {}) {
    const db = await StoreDatabase.open(dir);
    const store = new ConversationStore(options);
    store.persistTo(db.journal("conversations/"), db.entries("conversations/"));
    return {db, store, close: () => db.close()};
}

/** Every key under a prefix on disk, read with LevelDB itself (not through the stores). */
async function keysOnDisk(dir: string, prefix: string): Promise<string[]> {
    const db = new ClassicLevel<string, string>(path.join(dir, "store"));
    const keys = await db.keys({gte: prefix, lt: `${prefix}\xff`}).all();
    await db.close();
    return keys;
}

describe("durable stores (LevelDB data folder)", () => {
    it("restores responses with their input items, shared history blocks and item lookups", async () => {
        const dir = tempDir();
        const first = await openResponses(dir);
        const question = message("hello");
        const answer = message("hi there");
        first.store.put("alice", response("resp_1", [answer]), [question]);
        first.store.put("alice", response("resp_2", [message("again")]), [question, answer, message("more")]);
        first.store.put("bob", response("resp_3"), [message("bob's")]);
        const before = first.store.stats();
        await first.close();

        const second = await openResponses(dir);
        assert.deepEqual(second.store.get("alice", "resp_1")?.inputItems, [question]);
        assert.deepEqual(second.store.get("alice", "resp_1")?.response.output, [answer]);
        assert.equal(second.store.get("alice", "resp_2")?.inputItems.length, 3);
        assert.equal(second.store.get("bob", "resp_1"), undefined, "owners stay isolated");
        assert.deepEqual(second.store.findItem("alice", answer.id), answer);
        const after = second.store.stats();
        assert.deepEqual([after.entries, after.bytes, after.blocks], [before.entries, before.bytes, before.blocks]);
        await second.close();
    });

    it("keeps the LRU order across a restart, and a smaller budget on restart evicts the least recently used", async () => {
        const dir = tempDir();
        const first = await openResponses(dir);
        for (const id of ["a", "b", "c"])
            first.store.put("o", response(id), [message(id)]);
        first.store.get("o", "a"); // order now b, c, a
        await first.close();

        const second = await openResponses(dir, {maxEntries: 2});
        assert.equal(second.store.has("o", "b"), false, "b was the least recently used");
        assert.ok(second.store.has("o", "a") && second.store.has("o", "c"));
        await second.close();
        assert.deepEqual((await keysOnDisk(dir, "responses/r/")).sort(), ["responses/r/a", "responses/r/c"],
            "the eviction reached the disk");
    });

    it("holds the byte budget on disk: evicted records and their blocks leave the database", async () => {
        const dir = tempDir();
        const maxBytes = 20_000;
        const first = await openResponses(dir, {maxBytes});
        for (let index = 0; index < 40; index++)
            first.store.put("o", response(`r${index}`), [message(`${index} ${"x".repeat(1000)}`)]);
        const stats = first.store.stats();
        assert.ok(stats.bytes <= maxBytes && stats.evictions > 0);
        await first.close();
        const records = await keysOnDisk(dir, "responses/r/");
        const blocks = await keysOnDisk(dir, "responses/b/");
        assert.equal(records.length, stats.entries);
        assert.equal(blocks.length, stats.blocks, "no orphan blocks on disk");
        const second = await openResponses(dir, {maxBytes});
        assert.deepEqual(second.store.list("o").map((entry) => entry.id), first.store.list("o").map((entry) => entry.id));
        assert.equal(second.store.stats().bytes, stats.bytes);
        await second.close();
    });

    it("keeps each record's own expiry, and per-key quotas apply on restore", async () => {
        const dir = tempDir();
        let now = 1_000_000;
        const first = await openResponses(dir, {ttlSeconds: 10, now: () => now});
        first.store.put("o", response("old"), [message("old")]);
        now += 8000;
        first.store.put("o", response("new"), [message("new")]);
        first.store.put("p", response("p1"), [message("p1")]);
        first.store.put("p", response("p2"), [message("p2")]);
        await first.close();

        now += 3000; // "old" is 11 s old, "new" 3 s
        const second = await openResponses(dir, {ttlSeconds: 10, now: () => now, ownerMaxEntries: 1});
        assert.equal(second.store.has("o", "old"), false, "expired while the server was down");
        assert.ok(second.store.has("o", "new"));
        assert.deepEqual(second.store.list("p").map((entry) => entry.id), ["p2"], "the key's own oldest went first");
        await second.close();
        assert.deepEqual((await keysOnDisk(dir, "responses/r/")).sort(), ["responses/r/new", "responses/r/p2"]);
    });

    it("delete and clear remove the data from disk", async () => {
        const dir = tempDir();
        const first = await openResponses(dir);
        first.store.put("o", response("a"), [message("secret a")]);
        first.store.put("o", response("b"), [message("secret b")]);
        first.store.delete("o", "a");
        await first.db.flush();
        assert.deepEqual(await keysOnDisk(dir, "responses/r/").catch(() => "locked"), "locked", "the folder is held while open");
        await first.close();
        assert.deepEqual(await keysOnDisk(dir, "responses/r/"), ["responses/r/b"]);
        const second = await openResponses(dir);
        assert.equal(second.store.clear(), 1);
        await second.close();
        assert.deepEqual(await keysOnDisk(dir, "responses/"), [], "no record, block or use left");
    });

    it("after a clear, purgeDeleted leaves no trace of the cleared data in the database files", async () => {
        const dir = tempDir();
        const secret = `private-${Date.now()}-words`;
        const containsSecret = () => fs.readdirSync(path.join(dir, "store"))
            .some((name) => fs.readFileSync(path.join(dir, "store", name)).includes(secret));
        const {db, store, close} = await openResponses(dir);
        store.put("o", response("a"), [message(secret)]);
        await db.flush();
        assert.ok(containsSecret(), "written to LevelDB's log");
        store.clear();
        await db.flush();
        assert.ok(containsSecret(), "a delete alone only writes a tombstone");
        store.put("o", response("b"), [message("kept")]);
        const purging = db.purgeDeleted();
        store.put("o", response("c"), [message("written during the rewrite")]);
        await purging;
        await close();
        assert.equal(containsSecret(), false);
        const reopened = await openResponses(dir);
        assert.deepEqual(reopened.store.list("o").map((entry) => entry.id).sort(), ["b", "c"],
            "live data and changes made meanwhile are kept");
        await reopened.close();
    });

    it("a rewrite interrupted by a kill is completed (copy whole, original gone) or dropped (original still there)", async () => {
        const dir = tempDir();
        const first = await openResponses(dir);
        first.store.put("o", response("a"), [message("a")]);
        await first.close();
        const store = path.join(dir, "store");
        // Killed after the copy was made and the original moved away: the copy is renamed into place.
        fs.cpSync(store, `${store}.purge`, {recursive: true});
        fs.renameSync(store, `${store}.old`);
        const completed = await openResponses(dir);
        assert.ok(completed.store.has("o", "a"));
        await completed.close();
        // Killed while copying: the half copy is dropped, the original used.
        fs.mkdirSync(`${store}.purge`);
        fs.writeFileSync(path.join(`${store}.purge`, "000003.log"), "half");
        const dropped = await openResponses(dir);
        assert.ok(dropped.store.has("o", "a"));
        await dropped.close();
        assert.deepEqual(fs.readdirSync(dir).filter((name) => name.startsWith("store")), ["store"]);
    });

    it("restores conversations with their items (deleted ones stay deleted), metadata, and bounds", async () => {
        const dir = tempDir();
        const first = await openConversations(dir);
        const one = first.store.create("o", [message("one"), message("two")], {topic: "a"});
        const other = first.store.create("o", [message("x")], {});
        first.store.append("o", one.id, [message("three")]);
        const two = first.store.items("o", one.id)![1]!;
        first.store.deleteItem("o", one.id, two.id);
        first.store.updateMetadata("o", one.id, {topic: "b"});
        first.store.delete("o", other.id);
        const transcript = first.store.items("o", one.id)!.map((item) => item.id);
        const bytes = first.store.stats().bytes;
        await first.close();

        const second = await openConversations(dir);
        assert.deepEqual(second.store.items("o", one.id)!.map((item) => item.id), transcript);
        assert.deepEqual(second.store.get("o", one.id)?.metadata, {topic: "b"});
        assert.equal(second.store.get("o", other.id), undefined);
        assert.equal(second.store.stats().bytes, bytes);
        second.store.append("o", one.id, [message("four")]);
        const grown = second.store.items("o", one.id)!.map((item) => item.id);
        await second.close();

        const third = await openConversations(dir, {maxBytes: 1});
        assert.equal(third.store.get("o", one.id), undefined, "over today's byte budget: evicted");
        await third.close();
        assert.deepEqual(await keysOnDisk(dir, "conversations/"), []);
        assert.equal(grown.length, 3);
    });

    it("restores finished background jobs with their retained events; active ones are not kept", async () => {
        const dir = tempDir();
        const runner = async (payload: {owner: string, response: ResponseObject, history: readonly Item[]}, sink: (event: any) => void) => {
            for (const delta of ["a", "b", "c"])
                sink({type: "response.output_text.delta", delta});
            payload.response.status = "completed";
            return {response: payload.response, history: payload.history};
        };
        const db = await StoreDatabase.open(dir);
        const jobs = new BackgroundJobs(runner, {events: {maxEvents: 3}});
        jobs.persistTo(db.journal("jobs/"), db.entries("jobs/"));
        const created = jobs.submit(preparedJob("o", {...response("resp_job"), status: "queued"}, [message("q")]));
        await jobs.get("o", created.id)!.settled;
        const events = jobs.get("o", created.id)!.log.read(2);
        assert.equal(events.kind, "events");
        await db.close();

        const reopened = await StoreDatabase.open(dir);
        const restored = new BackgroundJobs(runner, {events: {maxEvents: 3}});
        restored.persistTo(reopened.journal("jobs/"), reopened.entries("jobs/"));
        const job = restored.get("o", created.id)!;
        assert.equal(job.phase, "finished");
        assert.equal(restored.view(job).status, "completed");
        assert.deepEqual(job.log.read(2), events, "the same events after the same cursor");
        assert.equal(job.log.read(0).kind, "gone", "events dropped before the restart stay dropped");
        assert.equal(job.log.read(job.log.lastSequence + 1).kind, "future");
        assert.equal(restored.get("p", created.id), undefined);
        assert.ok(restored.forget(job));
        await reopened.close();
        assert.deepEqual(await keysOnDisk(dir, "jobs/"), []);
    });

    it("a second opener of the folder gets an error naming it (same process and another process)", async () => {
        const dir = tempDir();
        const first = await StoreDatabase.open(dir);
        await assert.rejects(StoreDatabase.open(dir),
            (error: Error) => error instanceof DataFolderLockedError && error.message.includes(dir));
        const script = `import("${path.join(repoRoot, "node_modules/classic-level/index.js")}").then(async ({ClassicLevel}) => {
            try { await new ClassicLevel(${JSON.stringify(path.join(dir, "store"))}).open(); console.log("opened"); }
            catch (error) { console.log(error.cause?.code); } })`;
        const child = spawn(process.execPath, ["-e", script], {stdio: ["ignore", "pipe", "inherit"]});
        let output = "";
        child.stdout.on("data", (chunk) => (output += chunk));
        await new Promise((resolve) => child.on("exit", resolve));
        assert.equal(output.trim(), "LEVEL_LOCKED");
        await first.close();
        void (await StoreDatabase.open(dir)).close();
    });

    it("with lockWaitMs, an opener waits for another process to let go of the folder (a reloading window)", async () => {
        const dir = tempDir();
        void (await StoreDatabase.open(dir)).close();
        const script = `import("${path.join(repoRoot, "node_modules/classic-level/index.js")}").then(async ({ClassicLevel}) => {
            const db = new ClassicLevel(${JSON.stringify(path.join(dir, "store"))}); await db.open(); console.log("holding");
            setTimeout(() => db.close(), 800); })`;
        const child = spawn(process.execPath, ["-e", script], {stdio: ["ignore", "pipe", "inherit"]});
        await new Promise((resolve) => child.stdout.once("data", resolve));
        await assert.rejects(StoreDatabase.open(dir), DataFolderLockedError, "without waiting: refused at once");
        const started = Date.now();
        const db = await StoreDatabase.open(dir, undefined, {lockWaitMs: 10_000});
        assert.ok(Date.now() - started < 5000);
        await db.close();
    });

    for (const [what, spoil] of [
        ["a corrupt database", (store: string) => {
            for (const file of fs.readdirSync(store).filter((name) => name.startsWith("MANIFEST")))
                fs.writeFileSync(path.join(store, file), "garbage that is not a manifest");
        }],
        ["a newer schema version", async (store: string) => {
            const db = new ClassicLevel<string, unknown>(store, {valueEncoding: "json"});
            await db.put("meta/schema", schemaVersion + 1);
            await db.close();
        }],
        ["a foreign LevelDB database", async (store: string) => {
            fs.rmSync(store, {recursive: true});
            const db = new ClassicLevel<string, string>(store);
            await db.put("someone-else", "data");
            await db.close();
        }],
        ["a file where the database folder should be", (store: string) => {
            fs.rmSync(store, {recursive: true});
            fs.writeFileSync(store, "not a folder");
        }]
    ] as const)
        it(`${what}: logged, moved aside (never deleted), the store starts empty`, async () => {
            const dir = tempDir();
            const first = await openResponses(dir);
            first.store.put("o", response("a"), [message("a")]);
            await first.close();
            const store = path.join(dir, "store");
            await spoil(store);
            const lines: string[] = [];
            const second = await openResponses(dir, {}, (line) => lines.push(line));
            assert.equal(second.store.stats().entries, 0);
            const aside = fs.readdirSync(dir).filter((name) => name.startsWith("store.unusable-"));
            assert.equal(aside.length, 1);
            assert.match(lines.join("\n"),
                new RegExp(`${store.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} cannot be used \\(.+\\); moved aside to .*store\\.unusable-`));
            second.store.put("o", response("b"), [message("b")]);
            await second.close();
            const third = await openResponses(dir);
            assert.ok(third.store.has("o", "b"), "the new store works across restarts");
            await third.close();
        });
});
