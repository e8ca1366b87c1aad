import assert from "node:assert/strict";
import {describe, it} from "node:test";
import type {LoggedEvent, ResponseObject} from "../../../src/protocol/wire.js";
import {BackgroundJobs} from "../../../src/responses/background/BackgroundJobs.js";
import {BackgroundResponses} from "../../../src/responses/background/BackgroundResponses.js";
import type {PreparedResponse} from "../../../src/responses/pipeline/preparedResponse.js";
import {ResponseStore} from "../../../src/store/ResponseStore.js";
import {preparedJob} from "../../helpers/preparedJob.js";

let counter = 0;
function prepared(owner: string, background = true): PreparedResponse {
    const response = {
        id: `resp_bg_${++counter}`, object: "response", status: background ? "queued" : "in_progress", output: [], usage: null,
        error: null, background, store: true, completed_at: null
    } as unknown as ResponseObject;
    const job = preparedJob(owner, response, []);
    return {...job, params: {background}} as unknown as PreparedResponse;
}

/** Jobs whose runner completes each response when `finishAll` is called, or stops when its job is cancelled. */
function scriptedJobs() {
    const pending: Array<() => void> = [];
    const jobs = new BackgroundJobs((job, _sink: (event: LoggedEvent) => void, signal) => new Promise((resolve, reject) => {
        pending.push(() => {
            job.response.status = "completed";
            resolve({response: job.response, history: job.history});
        });
        signal.addEventListener("abort", () => reject(signal.reason as Error));
    }), {cancelWaitMs: 1000});
    return {jobs, finishAll: async () => {
        for (const finish of pending.splice(0))
            finish();
        await new Promise((resolve) => setImmediate(resolve));
    }};
}

describe("BackgroundResponses", () => {
    it("runs only what asked for the background, and refuses it without a store to keep the result", () => {
        const {jobs} = scriptedJobs();
        assert.equal(new BackgroundResponses(jobs, new ResponseStore()).accepts(prepared("a")), true);
        assert.equal(new BackgroundResponses(jobs, new ResponseStore()).accepts(prepared("a", false)), false);
        const withoutStore = new BackgroundResponses(jobs, new ResponseStore({maxEntries: 0}));
        assert.throws(() => withoutStore.create(prepared("a")), {status: 400, param: "background"});
    });

    it("polls and streams a job only for its own key; a stored response without a job record has no events kept", () => {
        const store = new ResponseStore();
        const background = new BackgroundResponses(scriptedJobs().jobs, store);
        const {created} = background.create(prepared("a"));
        assert.equal(background.poll("a", created.id)?.status, "queued");
        assert.equal(background.poll("b", created.id), undefined);
        assert.ok(background.events("a", created.id));
        assert.throws(() => background.events("b", created.id), {status: 404});
        const plain = prepared("a", false).response;
        store.put("a", plain, []);
        assert.throws(() => background.events("a", plain.id), {status: 409, code: "events_not_retained"});
    });

    it("refuses to delete an active job, deletes a finished one with its stored copy", async () => {
        const store = new ResponseStore();
        const {jobs, finishAll} = scriptedJobs();
        const background = new BackgroundResponses(jobs, store);
        const job = prepared("a");
        const {created} = background.create(job);
        assert.throws(() => background.delete("a", created.id), {status: 409, code: "response_active"});
        await finishAll();
        store.put("a", job.response, []);
        assert.equal(background.delete("a", created.id), true);
        assert.equal(store.has("a", created.id), false);
        assert.equal(background.delete("a", created.id), false, "no record left: the caller deletes the stored response alone");
    });

    it("cancels a job; after its record expired, a background response is returned as stored and others are refused", async () => {
        const store = new ResponseStore();
        const background = new BackgroundResponses(scriptedJobs().jobs, store);
        const {created} = background.create(prepared("a"));
        assert.equal((await background.cancel("a", created.id)).status, "cancelled");
        const expired = {...prepared("a").response, status: "completed"} as ResponseObject;
        store.put("a", expired, []);
        assert.equal((await background.cancel("a", expired.id)).id, expired.id);
        const foreground = {...prepared("a", false).response, status: "completed"} as ResponseObject;
        store.put("a", foreground, []);
        await assert.rejects(background.cancel("a", foreground.id), {status: 400, code: "not_cancellable"});
        await assert.rejects(background.cancel("b", created.id), {status: 404});
    });
});
