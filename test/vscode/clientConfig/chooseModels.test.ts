import assert from "node:assert/strict";
import {test} from "node:test";
import type {ModelInfo} from "../../../src/engine/types.js";
import {chooseMainModel, chooseSmallModel, type ServedModels} from "../../../src/vscode/clientConfig/chooseModels.js";
import {libraryEntry, scriptedPick} from "../../helpers/libraryModels.js";

const loaded: ModelInfo = {
    id: "stories260K", path: "/m/stories260K.gguf", contextSize: 2048, sequences: 4, trainContextSize: 2048, chatWrapper: "ChatML"
};
const GiB = 2 ** 30;
const library: ServedModels = {
    model: null,
    library: [
        libraryEntry("coder", {fileBytes: 18 * GiB, contextSize: 65536}),
        libraryEntry("thinker", {fileBytes: 9 * GiB, status: "loaded", info: {...loaded, id: "thinker", contextSize: 32768}}),
        libraryEntry("small", {fileBytes: GiB})
    ],
    defaultId: "thinker"
};

test("one model: its id and context, asked nothing (no model loaded: the name 'local', context unknown)", async () => {
    const {pick} = scriptedPick();
    assert.deepEqual(await chooseMainModel({model: loaded, library: null, defaultId: null}, pick, "t"),
        {id: "stories260K", contextWindow: 2048});
    assert.deepEqual(await chooseMainModel({model: null, library: null, defaultId: null}, pick, "t"),
        {id: "local", contextWindow: undefined});
    assert.equal(await chooseSmallModel({model: loaded, library: null, defaultId: null}, "stories260K", pick, "t"), "stories260K");
});

test("a library of one: its model, loaded or not, asked nothing", async () => {
    const {pick} = scriptedPick();
    const one = {model: null, library: [libraryEntry("coder", {contextSize: 65536})], defaultId: "coder"};
    assert.deepEqual(await chooseMainModel(one, pick, "t"), {id: "coder", contextWindow: 65536});
    assert.equal(await chooseSmallModel(one, "coder", pick, "t"), "coder");
});

test("a library of several: the picked model with its context as loaded, else as it will be, else none", async () => {
    const {pick, shown} = scriptedPick("coder", "thinker", "small", null);
    assert.deepEqual(await chooseMainModel(library, pick, "Configure Codex"), {id: "coder", contextWindow: 65536});
    assert.equal(shown[0]!.title, "Configure Codex");
    assert.deepEqual(shown[0]!.items.map((item) => item.id), ["thinker", "coder", "small"], "the default first");
    assert.deepEqual(await chooseMainModel(library, pick, "t"), {id: "thinker", contextWindow: 32768});
    assert.deepEqual(await chooseMainModel(library, pick, "t"), {id: "small"}, "the model's own context: unknown until loaded");
    assert.equal(await chooseMainModel(library, pick, "t"), null, "closed: nothing chosen");
});

test("a library of several: the small model is picked, the smallest offered first", async () => {
    const {pick, shown} = scriptedPick("small", null);
    assert.equal(await chooseSmallModel(library, "coder", pick, "small one"), "small");
    assert.deepEqual(shown[0]!.items.map((item) => item.id), ["small", "coder", "thinker"]);
    assert.equal(await chooseSmallModel(library, "coder", pick, "small one"), null);
});
