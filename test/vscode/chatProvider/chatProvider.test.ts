import assert from "node:assert/strict";
import {describe, it} from "node:test";
import type {ModelInfo} from "../../../src/engine/types.js";
import {libraryEntry} from "../../helpers/libraryModels.js";
import {modelNotFound, modelNotLoaded, serverOverloaded, unsupported} from "../../../src/protocol/errors.js";
import {chatModelInformation, outputReserveTokens} from "../../../src/vscode/chatProvider/chatModelInformation.js";
import {languageModelApiOf} from "../../../src/vscode/chatProvider/languageModelApi.js";
import {lmFailure} from "../../../src/vscode/chatProvider/lmError.js";
import {toLmMessage, toLmOptions} from "../../../src/vscode/chatProvider/lmMessages.js";
import {describeVscodeChat} from "../../../src/vscode/chatProvider/vscodeChatState.js";
import {
    DataPart, fakeVscodeModule, LanguageModelError, TextPart, ThinkingPart, ToolCallPart, ToolResultPart
} from "../../helpers/fakeLanguageModelApi.js";

const model: ModelInfo = {
    id: "stories260K", path: "/m/stories260K.gguf", contextSize: 2048, sequences: 4, trainContextSize: 2048, chatWrapper: "ChatML",
    name: "Stories 260K", architecture: "llama"
};

describe("the editor's Language Model Chat Provider API, found at run time", () => {
    it("is absent from an editor before 1.104 (its lm namespace has no registerLanguageModelChatProvider)", () => {
        assert.equal(languageModelApiOf({lm: {selectChatModels: () => []}, LanguageModelTextPart: TextPart}), null);
        assert.equal(languageModelApiOf({}), null);
    });

    it("registers under a vendor, makes the editor's parts and its LanguageModelError (NotFound when no model serves)", () => {
        const {module, registered} = fakeVscodeModule();
        const api = languageModelApiOf(module)!;
        assert.ok(api != null);
        const provider = {} as never;
        api.registerLanguageModelChatProvider("local-responses", provider).dispose();
        assert.deepEqual(registered, [{vendor: "local-responses", provider, disposed: true}]);
        assert.ok(api.newTextPart("hi") instanceof TextPart);
        assert.deepEqual(api.newToolCallPart("call_1", "f", {a: 1}), new ToolCallPart("call_1", "f", {a: 1}));
        const notFound = api.newError("no model", true) as LanguageModelError;
        assert.ok(notFound instanceof LanguageModelError);
        assert.equal(notFound.code, "NotFound");
        assert.equal((api.newError("busy", false) as LanguageModelError).code, "Unknown");
        const {LanguageModelError: _, ...older} = module;
        assert.equal(Object.getPrototypeOf(languageModelApiOf(older)!.newError("x", true)), Error.prototype,
            "no LanguageModelError: an Error");
    });
});

describe("the editor's messages as plain data", () => {
    const classes = languageModelApiOf(fakeVscodeModule().module)!.parts;

    it("tells parts apart by class: text, calls, results (text, data, other values), data; a thinking part is left out", () => {
        const bytes = new TextEncoder().encode("{\"t\":1}");
        const message = toLmMessage({role: 1, name: undefined, content: [
            new TextPart("Hi"), new ThinkingPart("hmm"),
            new ToolResultPart("call_1", [new TextPart("ok "), new DataPart(bytes, "application/json"), {raw: true}]),
            new DataPart(bytes, "text/plain")
        ]}, classes);
        assert.deepEqual(message, {role: "user", parts: [
            {type: "text", text: "Hi"},
            {type: "toolResult", callId: "call_1", content: [
                {type: "text", text: "ok "}, {type: "data", mimeType: "application/json", data: bytes}, {type: "value", value: {raw: true}}
            ]},
            {type: "data", mimeType: "text/plain", data: bytes}
        ]});
        assert.deepEqual(toLmMessage({role: 2, name: undefined, content: [new ToolCallPart("call_1", "f", {a: 1})]}, classes),
            {role: "assistant", parts: [{type: "toolCall", callId: "call_1", name: "f", input: {a: 1}}]});
        assert.equal(toLmMessage({role: 3, name: undefined, content: []}, classes).role, "system");
    });

    it("maps the tools, the tool mode (Required = 2) and the model options", () => {
        const tools = [{name: "f", description: "d", inputSchema: {type: "object"}}];
        const options = toLmOptions({tools, toolMode: 2, modelOptions: {temperature: 0}});
        assert.deepEqual(options, {tools, toolMode: "required", modelOptions: {temperature: 0}});
        assert.equal(toLmOptions({toolMode: 1}).toolMode, "auto");
    });
});

describe("the model the picker lists", () => {
    it("lists nothing while no model is loaded, not an error", () => {
        assert.deepEqual(chatModelInformation({model: null, engineKind: "local", upstreamModel: null}), []);
    });

    it("lists the loaded model: its metadata name, architecture as family, the context less the answer's reserve, tools, no images", () => {
        const [info] = chatModelInformation({model, engineKind: "local", upstreamModel: null});
        assert.deepEqual({...info, tooltip: undefined}, {
            id: "stories260K", name: "Stories 260K", family: "llama", version: "stories260K.gguf",
            detail: "Local Responses · this machine", tooltip: undefined,
            maxInputTokens: 1536, maxOutputTokens: 512, capabilities: {toolCalling: true, imageInput: false}
        });
        const bareModel = {...model, name: undefined, architecture: undefined};
        const bare = chatModelInformation({model: bareModel, engineKind: "local", upstreamModel: null})[0]!;
        assert.deepEqual([bare.name, bare.family], ["stories260K", "ChatML"], "no metadata: the id and the chat wrapper");
        assert.deepEqual([outputReserveTokens(32768), outputReserveTokens(2048), outputReserveTokens(2)], [4096, 512, 1]);
    });

    it("lists every model of a library, loaded or not, each with its context once known", () => {
        const entry = (id: string, status: "loaded" | "unloaded" | "failed", contextSize: number | null) => libraryEntry(id, {
            fileBytes: 1, quantization: "Q4_K_M", status, failure: status === "failed" ? "no memory" : null,
            info: status === "loaded" ? {...model, id} : null, contextSize
        });
        const infos = chatModelInformation({model: null, engineKind: "local", upstreamModel: null, library: [
            entry("coder", "loaded", 2048), entry("small", "unloaded", 16384), entry("new", "failed", null)
        ]});
        assert.deepEqual(infos.map((info) => [info.id, info.maxInputTokens, info.detail]), [
            ["coder", 1536, "Local Responses · this machine · loaded"],
            ["small", 12288, "Local Responses · this machine · library"],
            ["new", 3072, "Local Responses · this machine · library"]
        ]);
        assert.match(infos[1]!.tooltip!, /small \(loads on first use\): 16384 tokens of context \(4096 kept for the answer\), Q4_K_M/);
        assert.match(infos[2]!.tooltip!, /failed to load: no memory/);
        assert.deepEqual([infos[0]!.name, infos[0]!.family], ["Stories 260K", "llama"]);
    });

    it("lists the connected upstream model with the upstream engine", () => {
        const upstream = {
            ...model, id: "qwen", path: "gpu-a:8000", chatWrapper: "upstream qwen3", contextSize: 8192,
            name: undefined, architecture: undefined
        };
        const [info] = chatModelInformation({model: upstream, engineKind: "upstream", upstreamModel: "qwen3"});
        assert.deepEqual([info!.id, info!.family, info!.version, info!.detail, info!.maxInputTokens],
            ["qwen", "qwen3", "qwen3", "Local Responses · upstream", 6144]);
    });
});

describe("failures as the chat view shows them", () => {
    it("names the fix", () => {
        assert.deepEqual(lmFailure(modelNotLoaded(), "local"),
            {message: "Local Responses: no model loaded: run Local Responses: Load Model…", notFound: true});
        assert.match(lmFailure(modelNotLoaded(), "upstream").message,
            /upstream servers are not connected: run Local Responses: Load Model…/);
        assert.match(lmFailure(modelNotFound("a", "b"), "local").message, /Pick the loaded model in the model picker\.$/);
        assert.match(lmFailure(serverOverloaded(), "local").message, /busy .*retry shortly/);
        assert.deepEqual(lmFailure(unsupported("messages[0].content[1]", "Image input is not supported."), "local"),
            {message: "Local Responses: Image input is not supported.", notFound: false});
    });

    it("says in the Server view whether the editor's chat has the model", () => {
        assert.deepEqual((["on", "off", "unsupported"] as const).map(describeVscodeChat),
            ["on (model picker: Local Responses)", "off (localResponses.chatProvider.enabled)", "off (needs VS Code 1.104 or later)"]);
    });
});
