import assert from "node:assert/strict";
import {test} from "node:test";
import type {ModelInfo} from "../../../src/engine/types.js";
import {completionAvailability, type AvailabilityInputs} from "../../../src/vscode/completions/completionAvailability.js";

const coder = {id: "qwen2.5-coder-0.5b", fillInTheMiddle: true} as ModelInfo;
const chat = {id: "stories260K", fillInTheMiddle: false} as ModelInfo;
const inputs: AvailabilityInputs = {enabled: true, model: null, engineKind: "local", loaded: coder, library: false, refusal: null};

test("on by default from the loaded model when it has fill-in-the-middle tokens", () => {
    assert.deepEqual(completionAvailability(inputs), {state: "on", model: undefined, label: "qwen2.5-coder-0.5b"});
});

test("off with a one-line hint: a model without FIM tokens, no model, the upstream engine, or turned off", () => {
    const noFim = completionAvailability({...inputs, loaded: chat});
    assert.equal(noFim.state, "unavailable");
    assert.match("hint" in noFim ? noFim.hint : "",
        /^stories260K has no fill-in-the-middle tokens: set localResponses\.completions\.model/);
    assert.equal(completionAvailability({...inputs, loaded: null}).state, "unavailable");
    assert.equal(completionAvailability({...inputs, engineKind: "upstream"}).state, "unavailable");
    assert.deepEqual(completionAvailability({...inputs, enabled: false}),
        {state: "off", hint: "Code completion is off: click to turn it on."});
});

test("a named model is asked for (a library loads it), until the engine refuses it", () => {
    assert.deepEqual(completionAvailability({...inputs, loaded: chat, model: "coder"}), {state: "on", model: "coder", label: "coder"});
    assert.deepEqual(completionAvailability({...inputs, loaded: null, library: true}),
        {state: "on", model: undefined, label: "the default model"});
    const refused = {...inputs, model: "coder", refusal: {model: "coder", message: "Code completion is off: no FIM tokens"}};
    assert.deepEqual(completionAvailability(refused), {state: "unavailable", hint: "Code completion is off: no FIM tokens"});
    assert.equal(completionAvailability({...refused, model: "other"}).state, "on", "the refusal was of another model");
});
