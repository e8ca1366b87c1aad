import assert from "node:assert/strict";
import {after, describe, test} from "node:test";
import {EngineError} from "../../../../src/engine/EngineError.js";
import {GenerationActivity} from "../../../../src/engine/GenerationActivity.js";
import {LlamaEngine} from "../../../../src/engine/llama/LlamaEngine.js";
import {ProcessEngine, warmBinding} from "../../../../src/engine/process/ProcessEngine.js";
import {SpareModelProcess} from "../../../../src/engine/process/SpareModelProcess.js";
import type {ChatTurn, GenerationEvent} from "../../../../src/engine/types.js";
import {models} from "../../../helpers/paths.js";

/**
 * A model in a process of its own, on the real engine: the same answers as in the server's process, streamed event by
 * event, aborts and counts across the channel, and a native crash (the process killed by SIGABRT, what an abort in
 * llama.cpp does) that fails only that model's requests and leaves it to load again.
 */
const turns: ChatTurn[] = [{role: "user", text: "Once upon a time"}];
const settings = {threads: 1, contextSize: 1024, parallel: 2};

function alive(pid: number): boolean {
    try {
        process.kill(pid, 0);
        return true;
    } catch {
        return false;
    }
}

describe("ProcessEngine", () => {
    const activity = new GenerationActivity();
    const engine = new ProcessEngine({...settings, name: "stories", activity});
    after(() => engine.dispose());

    test("loads in a process of its own and answers as the same model does in the server's process", async () => {
        const info = await engine.load(models.chatml);
        assert.equal(engine.state, "ready");
        assert.equal(info.id, "stories260K");
        assert.ok(engine.pid != null && engine.pid !== process.pid && alive(engine.pid));

        const events: GenerationEvent[] = [];
        const tokensBefore = activity.snapshot().generatedTokens;
        const inProcess = new LlamaEngine(settings);
        await inProcess.load(models.chatml);
        try {
            const request = {turns, maxOutputTokens: 16, sampling: {temperature: 0}};
            const [apart, together] = [
                await engine.generate({...request, onEvent: (event) => events.push(event)}),
                await inProcess.generate(request)
            ];
            assert.equal(apart.text, together.text);
            assert.deepEqual(apart.usage, together.usage);
            assert.equal(events.map((event) => event.type === "text" ? event.text : "").join(""), apart.text);
            assert.ok(events.length > 1, "streamed event by event");
            assert.equal(await engine.countPromptTokens(turns), await inProcess.countPromptTokens(turns));
        } finally {
            await inProcess.dispose();
        }
        assert.equal(activity.snapshot().generatedTokens - tokensBefore, 16, "its tokens counted where the server reads them");
        assert.equal(activity.snapshot().active, 0);
    });

    test("an abort crosses the channel: the generation stops at once, its sequence is free again", async () => {
        const controller = new AbortController();
        let seen = 0;
        const result = await engine.generate({
            turns, maxOutputTokens: 400, sampling: {temperature: 0}, signal: controller.signal,
            onEvent: () => {
                if (++seen === 3)
                    controller.abort();
            }
        }).catch((error: unknown) => error);
        const stopped = result instanceof EngineError ? result.kind : (result as {stopReason: string}).stopReason;
        assert.ok(stopped === "aborted" || stopped === "abort", `stopped: ${String(stopped)}`);
        assert.ok(seen < 50, `${seen} events after the abort`);
        await new Promise((resolve) => setTimeout(resolve, 100));
        assert.equal(engine.stats().sequencesBusy, 0);
    });

    test("a native crash fails the running request with model_crashed; the next load starts a new process", async () => {
        const crashed = engine.pid!;
        let seen = 0;
        const running = engine.generate({
            turns, maxOutputTokens: 400, sampling: {temperature: 0},
            onEvent: () => {
                if (++seen === 2)
                    process.kill(crashed, "SIGABRT");
            }
        }).catch((error: unknown) => error);
        const error = await running;
        assert.ok(error instanceof EngineError, String(error));
        assert.equal(error.kind, "model_crashed");
        assert.match(error.message, /stories.*SIGABRT/);
        assert.equal(engine.state, "failed");
        assert.match(engine.failure ?? "", /SIGABRT/);
        assert.equal(activity.snapshot().active, 0, "its generation no longer counts as running");
        await assert.rejects(engine.countPromptTokens(turns), (thrown: EngineError) => thrown.kind === "not_ready");

        await engine.load(models.chatml);
        assert.equal(engine.state, "ready");
        assert.equal(engine.failure, null);
        assert.notEqual(engine.pid, crashed);
        const again = await engine.generate({turns, maxOutputTokens: 4});
        assert.equal(again.usage.outputTokens, 4);
    });

    test("unloading ends the process; a failed load leaves none behind", async () => {
        const pid = engine.pid!;
        await engine.unload();
        assert.equal(engine.state, "unloaded");
        assert.equal(alive(pid), false);
        await assert.rejects(engine.load("/nonexistent/model.gguf"), (error: EngineError) => error.kind === "load_failed");
        assert.equal(engine.pid, undefined);
        assert.equal(engine.state, "failed");
    });

    test("a spare process started ahead is the one the next load adopts, and another spare follows the load", async () => {
        const quiet = new GenerationActivity();
        const spare = new SpareModelProcess(warmBinding(settings), {activity: quiet, quietMs: 50});
        const adopting = new ProcessEngine({...settings, name: "adopting", spare});
        try {
            spare.startNow();
            const ahead = spare.pid;
            assert.ok(ahead != null);
            await adopting.load(models.chatml);
            assert.equal(adopting.pid, ahead);
            assert.equal(spare.pid, undefined, "the next spare waits for a quiet moment");
            // While something generates, no spare starts; once it has ended (and the quiet time passed), one does.
            quiet.begin();
            await new Promise((resolve) => setTimeout(resolve, 200));
            assert.equal(spare.pid, undefined);
            quiet.end();
            const deadline = Date.now() + 2000;
            while (spare.pid == null && Date.now() < deadline)
                await new Promise((resolve) => setTimeout(resolve, 20));
            assert.ok(spare.pid != null && spare.pid !== ahead);
            assert.equal((await adopting.generate({turns, maxOutputTokens: 4})).usage.outputTokens, 4);

            // No spare starts while a model loads: a second model takes this spare, and a third one loads with none
            // left; the next spare comes only after that load (it would take the cores the load needs).
            const second = new ProcessEngine({...settings, name: "second", spare});
            const third = new ProcessEngine({...settings, name: "third", spare});
            try {
                await second.load(models.qwen);
                const loading = third.load(models.think);
                await new Promise((resolve) => setTimeout(resolve, 300));
                assert.equal(third.state, "loading");
                assert.equal(spare.pid, undefined, "no spare starts beside a load");
                await loading;
                const due = Date.now() + 2000;
                while (spare.pid == null && Date.now() < due)
                    await new Promise((resolve) => setTimeout(resolve, 20));
                assert.ok(spare.pid != null, "a spare after the load");
            } finally {
                await Promise.all([second.dispose(), third.dispose()]);
            }
        } finally {
            await adopting.dispose();
            const last = spare.pid!;
            await spare.dispose();
            assert.equal(alive(last), false);
        }
    });
});
