import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {ApiError} from "../../../src/protocol/errors.js";
import type {Item, ResponseObject} from "../../../src/protocol/wire.js";
import {parseCreateRequest} from "../../../src/responses/createRequest.js";
import {HistoryResolver} from "../../../src/responses/pipeline/HistoryResolver.js";
import {ReasoningReplay} from "../../../src/responses/reasoning/ReasoningReplay.js";
import {ResponseLookup} from "../../../src/responses/ResponseLookup.js";
import {ConversationStore} from "../../../src/store/ConversationStore.js";
import {ResponseStore} from "../../../src/store/ResponseStore.js";

const user = (id: string,
    text = id): Item => ({type: "message", id, status: "completed", role: "user", content: [{type: "input_text", text}]});
const answer = (id: string, text = id): Item => ({
    type: "message", id, status: "completed", role: "assistant", content: [{type: "output_text", text, annotations: []}]
});
const params = (body: Record<string, unknown>) => parseCreateRequest({model: "m", input: "next", ...body});
const ids = (items: readonly Item[]) => items.map((item) => item.id);

/** A stored response's object as chaining reads it: its status and output matter, the rest is echoed settings. */
function response(id: string, status: ResponseObject["status"], output: Item[] = []): ResponseObject {
    return {id, object: "response", status, output, error: null, usage: null, background: false, store: true, created_at: 1,
        completed_at: null} as unknown as ResponseObject;
}

function resolver(options: {conversations?: ConversationStore,
    background?: Map<string, {response: ResponseObject, inputItems: Item[]}>} = {}) {
    const store = new ResponseStore();
    const lookup = new ResponseLookup(store, {backgroundResponse: (_owner, id) => options.background?.get(id)});
    return {store, history: new HistoryResolver(lookup, new ReasoningReplay(), {conversations: options.conversations})};
}

const refused = (status: number, code: string | null) => (error: unknown) => error instanceof ApiError && error.status === status
    && error.code === code;

describe("HistoryResolver", () => {
    it("inherits a previous response's input then output, and nothing without previous_response_id or conversation", () => {
        const {store, history} = resolver();
        store.put("a", response("resp_1", "completed", [answer("msg_a")]), [user("msg_q")]);
        assert.deepEqual(ids(history.inherited("a", params({previous_response_id: "resp_1"}))), ["msg_q", "msg_a"]);
        assert.deepEqual(history.inherited("a", params({})), []);
        assert.throws(() => history.inherited("b", params({previous_response_id: "resp_1"})),
            (error: unknown) => error instanceof ApiError && error.status === 404, "another owner's");
    });

    it("refuses to continue an unfinished, failed or cancelled previous response (a background record counts)", () => {
        const background = new Map([
            ["resp_running", {response: response("resp_running", "in_progress"), inputItems: []}],
            ["resp_failed", {response: response("resp_failed", "failed"), inputItems: []}],
            ["resp_cancelled", {response: response("resp_cancelled", "cancelled"), inputItems: []}],
            ["resp_done", {response: response("resp_done", "completed", [answer("msg_done")]), inputItems: [user("msg_job")]}]
        ]);
        const {history} = resolver({background});
        assert.throws(() => history.inherited("a", params({previous_response_id: "resp_running"})),
            refused(400, "previous_response_not_finished"));
        assert.throws(() => history.inherited("a", params({previous_response_id: "resp_failed"})),
            refused(400, "previous_response_unusable"));
        assert.throws(() => history.inherited("a", params({previous_response_id: "resp_cancelled"})),
            refused(400, "previous_response_unusable"));
        assert.deepEqual(ids(history.inherited("a", params({previous_response_id: "resp_done"}))), ["msg_job", "msg_done"]);
    });

    it("looks a previous response up in the caller's own responses first (a WebSocket connection's store: false ones)", () => {
        const {history} = resolver();
        const local = {response: response("resp_local", "completed", [answer("msg_l")]), inputItems: [user("msg_lq")]};
        const inherited = history.inherited("a", params({previous_response_id: "resp_local"}),
            (id) => (id === "resp_local" ? local : undefined));
        assert.deepEqual(ids(inherited), ["msg_lq", "msg_l"]);
    });

    it("reads a conversation's items, and refuses an unknown one or a server without conversations", () => {
        const conversations = new ConversationStore();
        const conversation = conversations.create("a", [user("msg_c1"), answer("msg_c2")], {});
        const {history} = resolver({conversations});
        assert.deepEqual(ids(history.inherited("a", params({conversation: conversation.id}))), ["msg_c1", "msg_c2"]);
        assert.throws(() => history.inherited("b", params({conversation: conversation.id})), refused(404, "conversation_not_found"));
        assert.throws(() => resolver().history.inherited("a", params({conversation: conversation.id})),
            refused(400, "unsupported_parameter"));
    });

    it("renders instructions first, then the items as turns; an empty history is one empty user turn", () => {
        const {history} = resolver();
        const turns = history.render("owner", [user("msg_1", "Hi"), answer("msg_2", "Hello")], "Be brief.");
        assert.deepEqual(turns.map((turn) => turn.role), ["system", "user", "model"]);
        assert.deepEqual(history.render("owner", [], null), [{role: "user", text: ""}]);
    });
});
