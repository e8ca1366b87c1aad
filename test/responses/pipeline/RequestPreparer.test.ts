import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {ApiError} from "../../../src/protocol/errors.js";
import type {Item} from "../../../src/protocol/wire.js";
import {HistoryResolver} from "../../../src/responses/pipeline/HistoryResolver.js";
import {ReasoningReplay} from "../../../src/responses/reasoning/ReasoningReplay.js";
import {RequestPreparer, type PreparerOptions} from "../../../src/responses/pipeline/RequestPreparer.js";
import {ResponseLookup} from "../../../src/responses/ResponseLookup.js";
import {ResponseStore} from "../../../src/store/ResponseStore.js";
import {ScriptedEngine} from "../../helpers/ScriptedEngine.js";

function preparer(options: PreparerOptions = {}, engine = new ScriptedEngine()) {
    const store = new ResponseStore();
    const lookup = new ResponseLookup(store);
    return {store, preparer: new RequestPreparer(engine, store, new HistoryResolver(lookup, new ReasoningReplay()), options)};
}

describe("RequestPreparer", () => {
    it("makes the response object as created (queued for background) with the history rendered to turns", () => {
        const {preparer: prepare} = preparer();
        const prepared = prepare.prepare("owner",
            {model: "any name", input: "Hi", instructions: "Be brief.", background: true, metadata: {k: "v"}});
        assert.equal(prepared.owner, "owner");
        assert.equal(prepared.response.status, "queued");
        assert.equal(prepared.response.model, "scripted", "the loaded model answers whatever the request names");
        assert.deepEqual(prepared.response.metadata, {k: "v"});
        assert.match(prepared.response.id, /^resp_/);
        assert.deepEqual(prepared.history, prepared.input, "nothing inherited");
        assert.deepEqual(prepared.turns.map((turn) => turn.role), ["system", "user"]);
        assert.equal(prepare.prepare("owner", {model: "m", input: "Hi"}).response.status, "in_progress");
    });

    it("refuses another model's name with strictModel, and any request while no model is loaded", () => {
        assert.throws(() => preparer({strictModel: true}).preparer.prepare("o", {model: "other", input: "x"}),
            (error: unknown) => error instanceof ApiError && error.status === 404 && error.code === "model_not_found");
        const unloaded = Object.assign(new ScriptedEngine(), {model: null});
        assert.throws(() => preparer({}, unloaded as unknown as ScriptedEngine).preparer.prepare("o", {model: "m", input: "x"}),
            (error: unknown) => error instanceof ApiError && error.status === 503 && error.code === "model_not_loaded");
    });

    it("resolves an item_reference from the owner's stored items and logs ignored hosted tools", () => {
        const logged: string[] = [];
        const {store, preparer: prepare} = preparer({log: (line) => logged.push(line)});
        const earlier: Item = {
            type: "message", id: "msg_earlier", status: "completed", role: "user", content: [{type: "input_text", text: "Earlier"}]
        };
        const answered = prepare.prepare("o", {model: "m", input: "Earlier"}).response;
        store.put("o", {...answered, status: "completed"}, [earlier]);
        const prepared = prepare.prepare("o",
            {model: "m", input: [{type: "item_reference", id: "msg_earlier"}], tools: [{type: "web_search"}]});
        assert.deepEqual(prepared.input, [earlier]);
        assert.match(logged.join("\n"), /ignored hosted tool types not run by this server: web_search/);
    });
});
