import assert from "node:assert/strict";
import {test} from "node:test";
import {completionStatusView} from "../../../src/vscode/completions/completionStatusView.js";
import {SuggestionStats} from "../../../src/vscode/completions/SuggestionStats.js";

test("the tooltip counts what the provider did: shown, accepted, cancelled, and the shown ones' latency", () => {
    const stats = new SuggestionStats();
    let changes = 0;
    stats.onChange(() => changes++);
    for (const ms of [120, 80, 400])
        stats.ended("shown", ms);
    stats.ended("cancelled");
    stats.ended("cancelled");
    stats.ended("empty");
    stats.accepted();
    assert.equal(changes, 7);
    const view = completionStatusView({state: "on", model: undefined, label: "coder"}, stats.snapshot);
    assert.equal(view.text, "$(sparkle) Completions");
    assert.deepEqual(view.tooltip.split("\n"), [
        "Code completion: on, from coder",
        "Suggestions: 3 shown, 1 accepted (33%)",
        "Asked: 6 (2 cancelled by typing, 1 empty, 0 failed)",
        "Latency: median 120 ms, last 400 ms",
        "",
        "Click to turn code completion off"
    ]);
});

test("off and unavailable say why in the tooltip's first line; no latency before a suggestion", () => {
    const empty = new SuggestionStats().snapshot;
    const off = completionStatusView({state: "off", hint: "Code completion is off: click to turn it on."}, empty);
    assert.equal(off.text, "$(circle-slash) Completions");
    assert.match(off.tooltip, /^Code completion is off: click to turn it on\.\nSuggestions: 0 shown, 0 accepted\n/);
    assert.match(off.tooltip, /Latency: none yet/);
    const unavailable = completionAvailabilityHint();
    assert.equal(completionStatusView(unavailable, empty).text, "$(warning) Completions");
});

function completionAvailabilityHint(): {state: "unavailable", hint: string} {
    return {state: "unavailable", hint: "stories260K has no fill-in-the-middle tokens"};
}
