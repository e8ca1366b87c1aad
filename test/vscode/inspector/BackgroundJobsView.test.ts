import assert from "node:assert/strict";
import {test} from "node:test";
import {BackgroundJobs} from "../../../src/responses/background/BackgroundJobs.js";
import type {PreparedResponse} from "../../../src/responses/pipeline/preparedResponse.js";
import type {ResponseObject, StreamEvent} from "../../../src/protocol/wire.js";
import {BackgroundJobsView} from "../../../src/vscode/inspector/BackgroundJobsView.js";
import {preparedJob} from "../../helpers/preparedJob.js";

function payload(id: string, owner: string, model = "m"): PreparedResponse {
    return preparedJob(owner, {id, object: "response", created_at: 1_700_000_000, status: "queued", model, output: [], usage: null,
        error: null, background: true} as unknown as ResponseObject, []);
}

test("the inspector lists every key's jobs, follows their events live and cancels a running one", async () => {
    // A runner that streams a delta every 5 ms until aborted, as a long generation would.
    const jobs = new BackgroundJobs(async (job, sink, signal) => {
        job.response.status = "in_progress";
        sink({type: "response.in_progress", response: job.response} as unknown as StreamEvent);
        while (!signal.aborted) {
            sink({type: "response.output_text.delta", delta: "tok"} as unknown as StreamEvent);
            await new Promise((resolve) => setTimeout(resolve, 5));
        }
        throw new Error("aborted");
    }, {workers: 1});
    const view = new BackgroundJobsView(jobs);
    const heard: string[] = [];
    view.onChange((id) => heard.push(id));

    jobs.submit(payload("resp_a", "key-a"));
    jobs.submit(payload("resp_b", "key-b", "coder"));
    await new Promise((resolve) => setTimeout(resolve, 200));

    const listed = view.list();
    assert.deepEqual(listed.map((job) => job.id).sort(), ["resp_a", "resp_b"]);
    const running = listed.find((job) => job.id === "resp_a")!;
    assert.equal(running.status, "in_progress");
    assert.ok(running.cancellable);
    assert.ok(running.eventCount > 5, `events: ${running.eventCount}`);
    assert.equal(listed.find((job) => job.id === "resp_b")!.status, "queued", "one worker: the second waits");
    assert.deepEqual(listed.map((job) => [job.id, job.model]).sort(), [["resp_a", "m"], ["resp_b", "coder"]],
        "each job names its request's model, queued or running");

    const events = view.events("resp_a");
    assert.deepEqual(events.slice(0, 3).map((event) => event.type), ["response.created", "response.queued", "response.in_progress"]);
    assert.equal(events.at(-1)!.summary, '"tok"');
    // Throttled: far fewer notifications than events.
    const forA = heard.filter((id) => id === "resp_a").length;
    assert.ok(forA >= 1 && forA < running.eventCount / 2, `notifications ${forA} for ${running.eventCount} events`);

    assert.equal(await view.cancel("resp_a"), true);
    assert.equal(view.list().find((job) => job.id === "resp_a")!.status, "cancelled");
    assert.equal(await view.cancel("resp_a"), false, "a finished job cannot be cancelled again");
    assert.equal(await view.cancel("resp_b"), true, "a queued job is dropped");
    assert.equal(await view.cancel("resp_nope"), false);
    await jobs.shutdown(1000);
    view.dispose();
});
