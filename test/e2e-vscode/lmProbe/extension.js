// Test-only (test/e2e-vscode/languageModel.e2e.ts, lmLibrary.e2e.ts): another extension's use of vscode.lm on Local
// Responses' models. Each command writes what it saw to <workspace>/.lm-probe/<command>.json: {ok: true, ...} or
// {ok: false, error, code}; a command that takes arguments reads them from <workspace>/.lm-probe/<command>.args.json.
"use strict";
const {execFileSync} = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");
const vscode = require("vscode");

const vendor = "local-responses";
const weather = {
    name: "get_weather",
    description: "The weather of a city",
    inputSchema: {type: "object", properties: {city: {type: "string", maxLength: 12}}, required: ["city"], additionalProperties: false}
};

function probeFolder() {
    return path.join(vscode.workspace.workspaceFolders[0].uri.fsPath, ".lm-probe");
}

function write(name, result) {
    const folder = probeFolder();
    fs.mkdirSync(folder, {recursive: true});
    // Written whole, then renamed: the test never reads half a file.
    fs.writeFileSync(path.join(folder, `${name}.json.tmp`), JSON.stringify(result, null, 2));
    fs.renameSync(path.join(folder, `${name}.json.tmp`), path.join(folder, `${name}.json`));
}

async function theModel() {
    const [model] = await vscode.lm.selectChatModels({vendor});
    if (model == null)
        throw new Error("no model of vendor local-responses");
    return model;
}

/** The parts of a response's stream, as plain data. */
async function collect(response) {
    const parts = [];
    for await (const part of response.stream) {
        if (part instanceof vscode.LanguageModelTextPart)
            parts.push({type: "text", value: part.value});
        else if (part instanceof vscode.LanguageModelToolCallPart)
            parts.push({type: "toolCall", callId: part.callId, name: part.name, input: part.input});
        else
            parts.push({type: "other"});
    }
    return parts;
}

function activate(context) {
    let changes = 0;
    context.subscriptions.push(vscode.lm.onDidChangeChatModels(() => changes++));
    const command = (name, run) => context.subscriptions.push(vscode.commands.registerCommand(`lmProbe.${name}`, async () => {
        try {
            write(name, {ok: true, ...await run()});
        } catch (error) {
            write(name, {ok: false, error: String(error && error.message), code: error && error.code});
        }
    }));

    // The extension host's pid and uptime too: after a crash the probe answers from a new process.
    command("models", async () => {
        const models = await vscode.lm.selectChatModels({vendor});
        return {changes, pid: process.pid, uptimeMs: Math.round(process.uptime() * 1000), models: models.map((model) => ({
            id: model.id, name: model.name, vendor: model.vendor, family: model.family, version: model.version,
            maxInputTokens: model.maxInputTokens
        }))};
    });

    command("chat", async () => {
        const model = await theModel();
        const justification = "The e2e test checks the local model.";
        const text = await collect(await model.sendRequest([vscode.LanguageModelChatMessage.User("Once upon a time")],
            {justification, modelOptions: {maxTokens: 24, temperature: 0}}));

        const question = vscode.LanguageModelChatMessage.User("What is the weather in Paris?");
        const forced = await collect(await model.sendRequest([question],
            {justification, tools: [weather], toolMode: vscode.LanguageModelChatToolMode.Required, modelOptions: {temperature: 0}}));
        const call = forced.find((part) => part.type === "toolCall");
        let followUp = [];
        if (call != null) {
            const result = new vscode.LanguageModelToolResultPart(call.callId, [new vscode.LanguageModelTextPart("Sunny, 21 degrees.")]);
            followUp = await collect(await model.sendRequest([
                question,
                vscode.LanguageModelChatMessage.Assistant([new vscode.LanguageModelToolCallPart(call.callId, call.name, call.input)]),
                vscode.LanguageModelChatMessage.User([result])
            ], {justification, tools: [weather], modelOptions: {maxTokens: 12, temperature: 0}}));
        }
        const counted = await model.countTokens("How many tokens is this sentence?");
        return {text, forced, followUp, counted};
    });

    // One request to the model the test names: {model, prompt, maxTokens, tools?} (tools: one call required).
    command("ask", async () => {
        const args = JSON.parse(fs.readFileSync(path.join(probeFolder(), "ask.args.json"), "utf8"));
        const [model] = await vscode.lm.selectChatModels({vendor, id: args.model});
        if (model == null)
            throw new Error(`no model ${args.model} of vendor ${vendor}`);
        const started = Date.now();
        const parts = await collect(await model.sendRequest([vscode.LanguageModelChatMessage.User(args.prompt)], {
            justification: "The e2e test checks a library model.", modelOptions: {maxTokens: args.maxTokens, temperature: 0},
            ...args.tools != null && {tools: args.tools, toolMode: vscode.LanguageModelChatToolMode.Required}
        }));
        return {model: model.id, parts, ms: Date.now() - started};
    });

    // A native abort of this extension host (Local Responses runs in it too), as llama.cpp's GGML_ABORT makes: SIGABRT.
    // It answers with the host's pid first. No core file: a dump of the host is hundreds of MB.
    command("abort", async () => {
        try {
            execFileSync("prlimit", ["--pid", String(process.pid), "--core=0:0"]);
        } catch {
            // prlimit missing: the system's own core limit applies.
        }
        setTimeout(() => process.abort(), 300);
        return {pid: process.pid};
    });

    command("cancel", async () => {
        const model = await theModel();
        const source = new vscode.CancellationTokenSource();
        // A forced call that cannot end early: its grammar asks for hundreds of words (seconds of generation).
        const words = {
            name: "write_words", description: "Writes many words",
            inputSchema: {
                type: "object",
                properties: {words: {type: "array", minItems: 300, items: {type: "string", minLength: 5}}},
                required: ["words"]
            }
        };
        const response = await model.sendRequest([vscode.LanguageModelChatMessage.User("Write many words.")],
            {tools: [words], toolMode: vscode.LanguageModelChatToolMode.Required, modelOptions: {maxTokens: 1500}}, source.token);
        const cancelledAt = Date.now() + 300;
        setTimeout(() => source.cancel(), 300);
        let parts = [];
        let error = null;
        try {
            parts = await collect(response);
        } catch (caught) {
            error = String(caught && caught.message);
        }
        return {parts, error, endedAfterCancelMs: Date.now() - cancelledAt};
    });
}

module.exports = {activate, deactivate: () => undefined};
