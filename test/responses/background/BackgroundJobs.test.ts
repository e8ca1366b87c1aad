import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {ApiError} from "../../../src/protocol/errors.js";
import type {LoggedEvent, ResponseObject} from "../../../src/protocol/wire.js";
import {BackgroundJobs, type BackgroundJobsOptions} from "../../../src/responses/background/BackgroundJobs.js";
import type {JobPayload} from "../../../src/responses/background/backgroundJob.js";
import type {GenerationOutcome, PreparedResponse} from "../../../src/responses/pipeline/preparedResponse.js";
import {preparedJob} from "../../helpers/preparedJob.js";

/** A fake clock with timers, so deadlines and retention run without waiting. */
function fakeTime() {
    let now = 1_000_000;
    const timers: Array<{at: number, callback: () => void, live: boolean}> = [];
    return {
        now: () => now,
        schedule: (callback: () => void, ms: number) => {
            const timer = {at: now + ms, callback, live: true};
            timers.push(timer);
            return () => {
                timer.live = false;
            };
        },
        advance(ms: number) {
            now += ms;
            for (const timer of timers.filter((entry) => entry.live && entry.at <= now)) {
                timer.live = false;
                timer.callback();
            }
        }
    };
}

let counter = 0;
function payload(owner = "a", historyText = "hi"): PreparedResponse {
    const response = {
        id: `resp_${++counter}`, object: "response", status: "queued", output: [], usage: null, error: null,
        background: true, completed_at: null
    } as unknown as ResponseObject;
    return preparedJob(owner, response,
        [{type: "message", id: `msg_${counter}`, status: "completed", role: "user", content: [{type: "input_text", text: historyText}]}]);
}

/** A runner whose jobs the test finishes by hand; it behaves like `admit` + `run` (aborts reject). */
function controllableRunner() {
    const running = new Map<string, {finish: () => void, sink: (event: LoggedEvent) => void}>();
    const runner = (job: JobPayload, sink: (event: LoggedEvent) => void,
        signal: AbortSignal) => new Promise<GenerationOutcome>((resolve, reject) => {
        job.response.status = "in_progress";
        sink({type: "response.created", sequence_number: 0});
        sink({type: "response.in_progress", sequence_number: 1});
        running.set(job.response.id, {
            sink,
            finish: () => {
                job.response.status = "completed";
                job.response.output = [
                    {
                        type: "message", id: "msg_out", status: "completed", role: "assistant",
                        content: [{type: "output_text", text: "done", annotations: []}]
                    }
                ];
                sink({type: "response.completed", sequence_number: 2});
                resolve({response: job.response, history: job.history});
            }
        });
        signal.addEventListener("abort", () => setImmediate(() => reject(new Error("aborted"))), {once: true});
    });
    return {runner, running};
}

function jobs(options: BackgroundJobsOptions = {}) {
    const time = fakeTime();
    const {runner, running} = controllableRunner();
    const finished: string[] = [];
    const manager = new BackgroundJobs(runner,
        {now: time.now, schedule: time.schedule, cancelWaitMs: 1000, onFinished: (job) => finished.push(job.id), ...options});
    return {manager, running, time, finished};
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("BackgroundJobs", () => {
    it("answers queued, hides output and usage until terminal, then shows the final object", async () => {
        const {manager, running} = jobs();
        const created = manager.submit(payload());
        assert.equal(created.status, "queued");
        await tick();
        const job = manager.get("a", created.id)!;
        assert.equal(manager.view(job).status, "in_progress");
        job.payload.response.output.push({type: "message", id: "partial", status: "in_progress", role: "assistant", content: []});
        assert.deepEqual(manager.view(job).output, []);
        assert.equal(manager.view(job).usage!.total_tokens, 0);
        running.get(created.id)!.finish();
        await job.settled;
        assert.equal(manager.view(job).status, "completed");
        assert.equal(manager.view(job).output.length, 1);
        const read = job.log.read(-1);
        assert.deepEqual(read.kind === "events" && read.events.map((event) => event.type),
            ["response.created", "response.queued", "response.in_progress", "response.completed"],
            "created/queued published once, renumbered");
        assert.equal(read.kind === "events" && read.done, true);
    });

    it("runs at most `workers` jobs; the rest wait queued and start in order", async () => {
        const {manager, running} = jobs({workers: 1});
        const first = manager.submit(payload());
        const second = manager.submit(payload());
        await tick();
        assert.equal(manager.stats().running, 1);
        assert.equal(manager.stats().queued, 1);
        assert.equal(manager.get("a", second.id)!.payload.response.status, "queued");
        running.get(first.id)!.finish();
        await manager.get("a", first.id)!.settled;
        await tick();
        assert.ok(running.has(second.id));
    });

    it("refuses with 429 beyond the active limits (total, per key, bytes), 413 for a large input, 503 on a full queue, "
        + "400 when disabled", () => {
        const total = jobs({maxActive: 2, maxActivePerOwner: 5}).manager;
        total.submit(payload("a"));
        total.submit(payload("b"));
        assert.throws(() => total.submit(payload("c")), (error: ApiError) => error.status === 429 && error.code === "rate_limit_exceeded");
        assert.equal(total.stats().rejected, 1);

        const perKey = jobs({maxActivePerOwner: 1}).manager;
        perKey.submit(payload("a"));
        assert.throws(() => perKey.submit(payload("a")), (error: ApiError) => error.status === 429);
        perKey.submit(payload("b"));

        const bytes = jobs({activeBytesBudget: () => 900}).manager;
        bytes.submit(payload("a", "x".repeat(200)));
        assert.throws(() => bytes.submit(payload("b", "x".repeat(400))), (error: ApiError) => error.status === 429);

        const large = jobs({maxInputBytes: 500}).manager;
        assert.throws(() => large.submit(payload("a", "x".repeat(600))), (error: ApiError) => error.status === 413);

        const full = jobs({generationQueueFull: () => true}).manager;
        assert.throws(() => full.submit(payload()), (error: ApiError) => error.status === 503);

        const disabled = jobs({maxActive: 0}).manager;
        assert.throws(() => disabled.submit(payload()), (error: ApiError) => error.status === 400);
    });

    it("cancels a queued job without starting it, and a running one only after its runner let go; idempotently", async () => {
        const {manager, running, finished} = jobs({workers: 1});
        const first = manager.submit(payload());
        const second = manager.submit(payload());
        await tick();
        const queued = await manager.cancel(manager.get("a", second.id)!);
        assert.equal(queued.status, "cancelled");
        assert.ok(!running.has(second.id), "a queued job never starts");
        const log = manager.get("a", second.id)!.log.read(-1);
        assert.deepEqual(log.kind === "events" && log.events.map((event) => event.type), ["response.created", "response.queued", "error"]);
        assert.equal(log.kind === "events" && log.events.at(-1)!.code, "response_cancelled");

        const cancelled = await manager.cancel(manager.get("a", first.id)!);
        assert.equal(cancelled.status, "cancelled");
        assert.deepEqual(cancelled.output, []);
        assert.equal((await manager.cancel(manager.get("a", first.id)!)).status, "cancelled", "cancel is idempotent");
        assert.deepEqual(finished.sort(), [first.id, second.id].sort());
        assert.equal(manager.stats().cancelled, 2);
    });

    it("a cancel that loses the race to completion leaves the job completed", async () => {
        const {manager, running} = jobs();
        const created = manager.submit(payload());
        await tick();
        running.get(created.id)!.finish();
        const result = await manager.cancel(manager.get("a", created.id)!);
        assert.equal(result.status, "completed");
    });

    it("fails a job past its deadline, queue time included", async () => {
        const clock = jobs({workers: 1, deadlineSeconds: 10});
        const a = clock.manager.submit(payload());
        const b = clock.manager.submit(payload());
        await tick();
        clock.time.advance(10_000);
        await clock.manager.get("a", a.id)!.settled;
        await clock.manager.get("a", b.id)!.settled;
        for (const id of [a.id, b.id]) {
            const view = clock.manager.view(clock.manager.get("a", id)!);
            assert.equal(view.status, "failed");
            assert.equal(view.error!.code, "job_timeout");
        }
    });

    it("keeps finished records for the retention time and at most maxRetained, and isolates owners", async () => {
        const {manager, running, time} = jobs({retentionSeconds: 60, maxRetained: 2});
        const ids: string[] = [];
        for (let index = 0; index < 3; index++) {
            const created = manager.submit(payload("a"));
            ids.push(created.id);
            await tick();
            running.get(created.id)!.finish();
            await manager.get("a", created.id)!.settled;
            time.advance(1);
        }
        assert.equal(manager.get("a", ids[0]!), undefined, "beyond maxRetained, the oldest finished record goes");
        assert.ok(manager.get("a", ids[2]!));
        assert.equal(manager.get("b", ids[2]!), undefined, "another key does not see it");
        time.advance(60_000);
        assert.equal(manager.get("a", ids[2]!), undefined);
        assert.equal(manager.stats().expired, 3);
    });

    it("refuses to forget an active job; its record shows its live status to its own key only", async () => {
        const {manager} = jobs();
        const created = manager.submit(payload());
        const job = manager.get("a", created.id)!;
        assert.equal(manager.forget(job), false);
        await tick();
        assert.equal(job.payload.response.status, "in_progress");
        assert.equal(manager.get("b", created.id), undefined);
    });

    it("shutdown stops admission, cancels queued and running jobs and waits for them", async () => {
        const {manager} = jobs({workers: 1});
        const first = manager.submit(payload());
        const second = manager.submit(payload());
        await tick();
        assert.equal(await manager.shutdown(), true);
        assert.equal(manager.view(manager.get("a", first.id)!).status, "cancelled");
        assert.equal(manager.view(manager.get("a", second.id)!).status, "cancelled");
        assert.throws(() => manager.submit(payload()), (error: ApiError) => error.status === 503);
    });
});
