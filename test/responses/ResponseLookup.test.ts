import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {ApiError} from "../../src/protocol/errors.js";
import type {Item, ResponseObject} from "../../src/protocol/wire.js";
import type {PreviousResponse} from "../../src/responses/pipeline/preparedResponse.js";
import {ResponseLookup} from "../../src/responses/ResponseLookup.js";
import {ResponsesService} from "../../src/responses/ResponsesService.js";
import {ResponseStore} from "../../src/store/ResponseStore.js";
import {ScriptedEngine} from "../helpers/ScriptedEngine.js";

const notFound = (error: unknown) => error instanceof ApiError && error.status === 404;

/** A finished response object, made the real way (prepared and run on a scripted engine) but not stored. */
async function finishedResponse(input: Item[] | string): Promise<{response: ResponseObject, history: Item[]}> {
    const service = new ResponsesService(new ScriptedEngine({events: [{type: "text", text: "ok"}]}), new ResponseStore());
    const prepared = service.prepare("owner", {model: "m", input, store: false});
    const {response, history} = await service.run(await service.admit(prepared));
    return {response, history: [...history]};
}

describe("ResponseLookup", () => {
    it("retrieves, lists the input items of and deletes a stored response, for its owner only", async () => {
        const store = new ResponseStore();
        const lookup = new ResponseLookup(store);
        const {response, history} = await finishedResponse("What is up?");
        store.put("owner", response, history);

        assert.equal(lookup.retrieve("owner", response.id).id, response.id);
        assert.throws(() => lookup.retrieve("someone else", response.id), notFound);
        const page = lookup.listInputItems("owner", response.id, {order: "asc"});
        assert.deepEqual(page.data.map((item) => item.id), history.map((item) => item.id));
        assert.deepEqual(lookup.delete("owner", response.id), {id: response.id, object: "response.deleted", deleted: true});
        assert.throws(() => lookup.delete("owner", response.id), notFound, "deleted once");
        assert.throws(() => lookup.listInputItems("owner", response.id, {}), notFound);
    });

    it("finds a background job's record when the store has none, and serves its input items", async () => {
        const {response, history} = await finishedResponse("A long job");
        const records = new Map<string, PreviousResponse>([[response.id, {response, inputItems: history}]]);
        const asked: string[] = [];
        const lookup = new ResponseLookup(new ResponseStore(), {backgroundResponse: (owner, id) => {
            asked.push(owner);
            return owner === "owner" ? records.get(id) : undefined;
        }});
        assert.equal(lookup.find("owner", response.id)?.response, response);
        assert.equal(lookup.find("other", response.id), undefined);
        assert.deepEqual(lookup.listInputItems("owner", response.id, {order: "asc"}).data.map((item) => item.id),
            history.map((item) => item.id));
        assert.throws(() => lookup.retrieve("owner", response.id), notFound, "retrieve reads the store; background routes serve job polls");
        assert.deepEqual(asked, ["owner", "other", "owner"]);
    });
});
