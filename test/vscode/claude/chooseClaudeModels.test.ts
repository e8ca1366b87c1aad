import assert from "node:assert/strict";
import {test} from "node:test";
import {chooseClaudeModels} from "../../../src/vscode/claude/chooseClaudeModels.js";
import {libraryEntry, scriptedPick} from "../../helpers/libraryModels.js";

const GiB = 2 ** 30;
const library = {
    model: null,
    library: [libraryEntry("coder", {fileBytes: 18 * GiB}), libraryEntry("small", {fileBytes: GiB}), libraryEntry("thinker")],
    defaultId: "coder"
};

test("one model: the model served for both, asked nothing (as before libraries)", async () => {
    const {pick, shown} = scriptedPick();
    const loaded = {id: "stories260K", path: "/m/s.gguf", contextSize: 2048, sequences: 1, trainContextSize: 2048, chatWrapper: "ChatML"};
    assert.deepEqual(await chooseClaudeModels({model: loaded, library: null, defaultId: null}, pick),
        {model: "stories260K", contextWindow: 2048}, "with the context it serves");
    assert.deepEqual(await chooseClaudeModels({model: null, library: [libraryEntry("only")], defaultId: "only"}, pick), {model: "only"});
    assert.deepEqual(shown, []);
});

test("a library: the main model, then the small one (the smallest offered first, 'same as main' next)", async () => {
    const {pick, shown} = scriptedPick("coder", "small");
    assert.deepEqual(await chooseClaudeModels(library, pick), {model: "coder", library: {smallModel: "small"}});
    assert.deepEqual(shown.map((call) => call.title), ["Configure Claude Code: main model", "Configure Claude Code: small, fast model"]);
    assert.deepEqual(shown[1]!.items.map((item) => [item.id, item.description.split(" · ")[0]]),
        [["small", "smallest"], ["coder", "same as the main model"], ["thinker", "unloaded"]]);
});

test("a library: 'same as the main model' writes one model for both; closing either pick writes nothing", async () => {
    assert.deepEqual(await chooseClaudeModels(library, scriptedPick("thinker", "thinker").pick),
        {model: "thinker", library: {smallModel: "thinker"}});
    const closedFirst = scriptedPick(null);
    assert.equal(await chooseClaudeModels(library, closedFirst.pick), null);
    assert.equal(closedFirst.shown.length, 1, "no second pick after the first was closed");
    assert.equal(await chooseClaudeModels(library, scriptedPick("coder", null).pick), null);
});
