import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {test} from "node:test";
import {repoRoot} from "../../helpers/paths.js";
import {ResponseStore} from "../../../src/store/ResponseStore.js";
import {inspectorHtml} from "../../../src/vscode/inspector/inspectorHtml.js";
import {isFromWebview} from "../../../src/vscode/inspector/shared/inspectorProtocol.js";
import {filterResponses, modelFilter, summarizeResponse} from "../../../src/vscode/inspector/shared/responseSummary.js";
import {StoreResponses} from "../../../src/vscode/inspector/StoreResponses.js";
import type {ResponseObject} from "../../../src/protocol/wire.js";

function response(id: string, text: string, extra: Partial<ResponseObject> = {}): ResponseObject {
    return {
        id, object: "response", created_at: 1_700_000_000, status: "completed", model: "stories260K", background: false,
        usage: {
            input_tokens: 5, input_tokens_details: {cached_tokens: 0}, output_tokens: 7, output_tokens_details: {reasoning_tokens: 0},
            total_tokens: 12
        },
        output: [
            {
                type: "message", id: `msg_${id}`, status: "completed", role: "assistant",
                content: [{type: "output_text", text, annotations: []}]
            }
        ],
        metadata: {}, ...extra
    } as unknown as ResponseObject;
}

const userItem = (text: string) => ({type: "message", id: `msg_in_${text}`, status: "completed", role: "user",
    content: [{type: "input_text", text}]}) as never;

test("the inspector sees every key's responses, with detail, and deletes them without knowing the key", () => {
    const store = new ResponseStore();
    store.put("owner-a", response("resp_a", "Once upon a time"), [userItem("hi")]);
    store.put("owner-b", response("resp_b", "The end", {metadata: {task: "e2e"}}), [userItem("bye")]);
    const source = new StoreResponses(store);
    let changes = 0;
    const off = source.onChange(() => changes++);

    assert.deepEqual(source.list().map((summary) => summary.id).sort(), ["resp_a", "resp_b"]);
    const detail = source.detail("resp_b");
    assert.ok(detail != null);
    assert.equal(detail.inputItems.length, 1);
    assert.equal(detail.timings, null, "put without timings");
    const timings = {
        queueWaitMs: 1, timeToFirstTokenMs: 2, generationMs: 3, outputTokensPerSecond: null, promptTokensPerSecond: null, inputTokens: 5,
        cachedTokens: 0, outputTokens: 7
    };
    store.put("owner-c", response("resp_c", "Timed"), [], timings);
    assert.deepEqual(source.detail("resp_c")?.timings, timings);
    store.delete("owner-c", "resp_c");
    assert.equal((detail.response.output[0] as {content: {text: string}[]}).content[0]!.text, "The end");
    const hitsBefore = store.stats().hits;
    source.detail("resp_a");
    assert.equal(store.stats().hits, hitsBefore, "inspecting is not a client read");

    assert.equal(source.delete("resp_b"), true);
    assert.equal(source.delete("resp_b"), false);
    assert.equal(source.detail("resp_b"), null);
    assert.equal(store.get("owner-b", "resp_b"), undefined, "deleted for its owner too");
    assert.equal(source.clear(), 1);
    assert.deepEqual(source.list(), []);
    assert.ok(changes >= 2);
    off();
});

test("summaries and the filter: status, and search over id, model, text and metadata", () => {
    const rows = [
        summarizeResponse(response("resp_1", "Once upon a time there was a cat")),
        summarizeResponse(response("resp_2", "A dog", {status: "incomplete", metadata: {ticket: "ABC-1"}})),
        summarizeResponse(response("resp_3", "Birds", {background: true, usage: null}))
    ];
    assert.equal(rows[2]!.background, true);
    assert.equal(rows[2]!.inputTokens, null);
    assert.equal(rows[0]!.preview, "Once upon a time there was a cat");
    const ids = (filter: {search: string, status: string}) => filterResponses(rows, {...filter, model: ""}).map((row) => row.id);
    assert.deepEqual(ids({search: "", status: ""}), ["resp_1", "resp_2", "resp_3"]);
    assert.deepEqual(ids({search: "", status: "incomplete"}), ["resp_2"]);
    assert.deepEqual(ids({search: "CAT", status: ""}), ["resp_1"]);
    assert.deepEqual(ids({search: "abc-1", status: ""}), ["resp_2"]);
    assert.deepEqual(ids({search: "resp_3", status: "completed"}), ["resp_3"]);
    assert.deepEqual(ids({search: "nothing", status: ""}), []);
});

test("with several models: each row names the model that answered, and a model filter is offered (All models first)", () => {
    const rows = [
        summarizeResponse(response("resp_1", "Once", {model: "qwen-coder"})),
        summarizeResponse(response("resp_2", "Twice", {model: "llama-small", status: "incomplete"})),
        summarizeResponse(response("resp_3", "Thrice", {model: "qwen-coder"}))
    ];
    assert.deepEqual(rows.map((row) => row.model), ["qwen-coder", "llama-small", "qwen-coder"]);
    assert.deepEqual(modelFilter(rows, ""), {
        shown: true, value: "",
        choices: [
            {value: "", label: "All models"}, {value: "llama-small", label: "llama-small"}, {value: "qwen-coder", label: "qwen-coder"}
        ]
    });
    const ids = (model: string, status = "") => filterResponses(rows, {search: "", status, model}).map((row) => row.id);
    assert.deepEqual(ids(""), ["resp_1", "resp_2", "resp_3"], "All models");
    assert.deepEqual(ids("qwen-coder"), ["resp_1", "resp_3"]);
    assert.deepEqual(ids("llama-small", "incomplete"), ["resp_2"], "with the status filter");
    assert.deepEqual(ids("qwen-coder", "incomplete"), []);
    assert.deepEqual(filterResponses(rows, {search: "twice", status: "", model: "qwen-coder"}), [], "and with the search");

    const one = rows.filter((row) => row.model === "qwen-coder");
    assert.equal(modelFilter(one, "").shown, false, "one model: nothing to pick between");
    assert.equal(modelFilter([], "").shown, false);
    // The chosen model's responses all gone (evicted, deleted): the filter no longer hides the others.
    assert.equal(modelFilter(one, "llama-small").value, "");
    assert.deepEqual(ids("gone-model"), ["resp_1", "resp_2", "resp_3"]);
    assert.equal(modelFilter(rows, "llama-small").value, "llama-small");
});

test("the page allows only its nonce'd script and the bundle's own styles", () => {
    const html = inspectorHtml({cspSource: "https://webview.test", scriptUri: "https://webview.test/main.js", styleUris: ["https://webview.test/uplot.min.css", "https://webview.test/inspector.css"], nonce: "abc123"});
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? "";
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'nonce-abc123'(;|$)/);
    assert.match(csp, /style-src https:\/\/webview\.test(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.equal(html.match(/<script/g)?.length, 1);
    assert.match(html, /<script nonce="abc123" src="https:\/\/webview\.test\/main\.js">/);
    assert.equal(html.match(/<link rel="stylesheet"/g)?.length, 2);
    const two = inspectorHtml({cspSource: "x", scriptUri: "y", styleUris: ["z"]});
    const three = inspectorHtml({cspSource: "x", scriptUri: "y", styleUris: ["z"]});
    assert.notEqual(/nonce-([^']+)/.exec(two)?.[1], /nonce-([^']+)/.exec(three)?.[1], "a fresh nonce per page");
});

test("messages from the page are checked before anything acts on them", () => {
    assert.equal(isFromWebview({type: "ready"}), true);
    assert.equal(isFromWebview({type: "openResponse", id: "resp_1"}), true);
    assert.equal(isFromWebview({type: "watchJob", id: null}), true);
    assert.equal(isFromWebview({type: "deleteResponse", id: ""}), false);
    assert.equal(isFromWebview({type: "cancelJob"}), false);
    assert.equal(isFromWebview({type: "eval", code: "1"}), false);
    assert.equal(isFromWebview("ready"), false);
    assert.equal(isFromWebview(null), false);
});

test("the chart's stylesheet in media/ is the one of the uPlot version bundled into the page", () => {
    const vendored = fs.readFileSync(path.join(repoRoot, "media/uplot.min.css"), "utf8").replace(/^\/\*[^\n]*\*\/\n/, "");
    assert.equal(vendored, fs.readFileSync(path.join(repoRoot, "node_modules/uplot/dist/uPlot.min.css"), "utf8"));
    const version = (JSON.parse(fs.readFileSync(path.join(repoRoot, "node_modules/uplot/package.json"),
        "utf8")) as {version: string}).version;
    assert.match(fs.readFileSync(path.join(repoRoot, "media/uplot.min.css"), "utf8"),
        new RegExp(`^/\\* uPlot ${version.replace(/\./g, "\\.")} `));
});
