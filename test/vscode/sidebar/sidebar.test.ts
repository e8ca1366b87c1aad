import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {test} from "node:test";
import {repoRoot} from "../../helpers/paths.js";
import type {ControllerState} from "../../../src/vscode/controller/controllerState.js";
import {commandIds} from "../../../src/vscode/manifest/commandIds.js";
import type {JobSummary, ResponseSummary} from "../../../src/vscode/inspector/shared/inspectorProtocol.js";
import {jobRows} from "../../../src/vscode/sidebar/jobRows.js";
import {listModelFiles} from "../../../src/vscode/models/listModelFiles.js";
import {modelRows} from "../../../src/vscode/sidebar/modelRows.js";
import {responseRowLimit, responseRows} from "../../../src/vscode/sidebar/responseRows.js";
import {serverRows} from "../../../src/vscode/sidebar/serverRows.js";
import type {SidebarRow} from "../../../src/vscode/sidebar/SidebarRow.js";
import {sidebarViewIds} from "../../../src/vscode/manifest/viewIds.js";

const listening: ControllerState = {
    server: "listening", engine: "ready", pendingModelPath: null, loadProgress: null, endpoint: "http://127.0.0.1:8080/v1", lastError: null, engineKind: "local", upstreamModel: null, library: null,
    model: {id: "stories260K", path: "/m/stories260K.gguf", contextSize: 2048, sequences: 4, trainContextSize: 2048, chatWrapper: "ChatML"}
};
const totals = {inputTokens: 12_345, outputTokens: 40, cachedTokens: 100, generations: 3};

test("Server view: state, endpoint, model, context, threads, queue and totals", () => {
    const rows = serverRows({
        state: listening, engine: {sequencesBusy: 1, sequencesTotal: 4, queueDepth: 2, queueLimit: 64},
        threads: {count: 1, isDefault: true}, totals, vscodeChat: "on"
    });
    const byId = new Map(rows.map((row) => [row.id, row]));
    assert.equal(byId.get("server.state")!.description, "listening · model ready");
    assert.equal(byId.get("server.endpoint")!.contextValue, "server.endpoint", "the endpoint row has its inline Copy");
    assert.equal(byId.get("server.model")!.description, "stories260K (ChatML)");
    assert.equal(byId.get("server.context")!.description, "2048 tokens × 4 sequences (trained 2048)");
    assert.equal(byId.get("server.engine")!.description, "local (this machine)");
    const upstreamModel = {
        id: "qwen", path: "gpu-a:8000", contextSize: 8192, sequences: 4, trainContextSize: 8192, chatWrapper: "upstream qwen"
    };
    const upstream = serverRows({
        state: {...listening, engineKind: "upstream", model: upstreamModel}, engine: null, threads: {count: 1, isDefault: true}, totals,
        vscodeChat: "on"
    });
    assert.equal(upstream.find((row) => row.id === "server.engine")!.description, "upstream · qwen on gpu-a:8000",
        "which engine and which upstream model answer");
    assert.equal(byId.get("server.threads")!.description, "1 (cores − 1)");
    assert.equal(byId.get("server.queue")!.description, "2 waiting (limit 64) · 1/4 sequences busy");
    assert.equal(byId.get("server.totals")!.description, "3 responses · 12.3k in (100 cached) / 40 out");
    assert.equal(byId.get("server.vscodeChat")!.description, "on (model picker: Local Responses)");

    const unloaded = serverRows({
        state: {...listening, model: null, engine: "unloaded"}, engine: null, threads: {count: 3, isDefault: false}, totals,
        vscodeChat: "on"
    });
    assert.equal(unloaded[0]!.description, "listening · no model (503)");
    assert.equal(unloaded.find((row) => row.id === "server.queue")!.description, "–");
    const stopped = serverRows({
        state: {...listening, server: "stopped", endpoint: null, model: null, engine: "loading", pendingModelPath: "/m/x.gguf",
            loadProgress: 0.5}, engine: null, threads: {count: 3, isDefault: false}, totals, vscodeChat: "on"
    });
    assert.equal(stopped[0]!.description, "stopped · loading model 50%");
    assert.equal(stopped[1]!.contextValue, undefined, "no endpoint to copy");
    assert.equal(stopped[2]!.description, "x.gguf (loading)");
});

test("Server view: the local model's chat format, with a warning where its own tool calls are not understood", () => {
    const facts = {engine: null, threads: {count: 1, isDefault: true}, totals, vscodeChat: "on"} as const;
    const row = (chatFormat: NonNullable<ControllerState["model"]>["chatFormat"]) => serverRows({
        ...facts, state: {...listening, model: {...listening.model!, chatFormat}}
    }).find((found) => found.id === "server.chatFormat");
    assert.equal(row(undefined), undefined, "no row where the engine reports none (upstream)");
    const understood = row({wrapper: "JinjaTemplate+kimi-k2", family: "kimi-k2", toolCallsUnderstood: true})!;
    assert.deepEqual([understood.description, understood.icon, understood.tooltip],
        ["JinjaTemplate+kimi-k2 (family kimi-k2, tool calls understood)", "symbol-namespace", undefined]);
    const generic = row({wrapper: "JinjaTemplate", family: null, toolCallsUnderstood: false})!;
    assert.equal(generic.icon, "warning");
    assert.match(generic.tooltip ?? "", /--chat-wrapper NAME or --chat-template FILE/);
});

test("Models view: loaded first, each file once, only downloaded files deletable", () => {
    const rows = modelRows({
        recent: ["/dl/b.gguf", "/elsewhere/a.gguf", "/m/stories260K.gguf"],
        downloaded: [{path: "/dl/b.gguf", bytes: 3 * 1024 * 1024}, {path: "/dl/c.gguf", bytes: 1024}],
        loadedPath: "/m/stories260K.gguf",
        loadingPath: null
    });
    assert.deepEqual(rows.map((row) => row.label), ["stories260K.gguf", "b.gguf", "a.gguf", "c.gguf"]);
    assert.deepEqual(rows.map((row) => row.contextValue), ["model.recent.loaded", "model.downloaded", "model.recent", "model.downloaded"]);
    assert.equal(rows[0]!.description, "loaded · recent");
    assert.equal(rows[1]!.description, "downloaded · 3.0 MiB");
    assert.equal(rows[2]!.target, "/elsewhere/a.gguf");
    assert.deepEqual(modelRows({recent: [], downloaded: [], loadedPath: null, loadingPath: null}), [],
        "empty: the view's welcome content shows");
});

const summary = (id: string, status = "completed"): ResponseSummary => ({
    id, createdAt: 1_700_000_000, status, model: "m", inputTokens: 5, outputTokens: 7, background: false, preview: `text of ${id}`,
    metadata: {}
});

test("Responses view: the newest stored responses, each opening in the inspector on Enter", () => {
    const many = Array.from({length: responseRowLimit + 5}, (_, index) => summary(`resp_${index}`));
    const rows = responseRows(many, commandIds.sidebarOpenResponse, () => "12:00");
    assert.equal(rows.length, responseRowLimit);
    assert.deepEqual(rows[0], {
        id: "response:resp_0", label: "text of resp_0", description: "completed · 5→7 tokens · 12:00",
        tooltip: "resp_0\nm · completed\ntext of resp_0",
        icon: "pass", contextValue: "response", command: {command: commandIds.sidebarOpenResponse, title: "Open in Inspector"},
        target: "resp_0"
    });
    assert.equal(responseRows([{...summary("resp_x", "failed"), preview: ""}], "c", String)[0]!.label, "resp_x", "no text: the id");
});

test("Jobs view: live jobs first and cancellable inline; a server without background mode says so", () => {
    const job = (id: string, cancellable: boolean, createdAt: number): JobSummary => ({
        id, status: cancellable ? "in_progress" : "completed", createdAt, model: "m", eventCount: 3, cancellable, timings: null
    });
    const rows = jobRows([job("old_done", false, 1), job("new_done", false, 3), job("running", true, 2)], commandIds.sidebarOpenJob);
    assert.deepEqual(rows.map((row) => [row.target, row.contextValue]),
        [["running", "job.active"], ["new_done", "job.finished"], ["old_done", "job.finished"]]);
    assert.deepEqual(jobRows(null, "c").map((row) => row.label), ["Background mode is off"]);
    assert.deepEqual(jobRows([], "c"), []);
});

test("listModelFiles: the .gguf files of the download folder with sizes; a missing folder has none", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lr-models-"));
    try {
        fs.writeFileSync(path.join(dir, "b.gguf"), Buffer.alloc(10));
        fs.writeFileSync(path.join(dir, "a.GGUF"), Buffer.alloc(3));
        fs.writeFileSync(path.join(dir, "c.gguf.ipull"), Buffer.alloc(1));
        fs.mkdirSync(path.join(dir, "d.gguf"));
        assert.deepEqual(await listModelFiles(dir),
            [{path: path.join(dir, "a.GGUF"), bytes: 3}, {path: path.join(dir, "b.gguf"), bytes: 10}]);
        assert.deepEqual(await listModelFiles(path.join(dir, "missing")), []);
    } finally {
        fs.rmSync(dir, {recursive: true, force: true});
    }
});

type Menu = {command: string, when?: string, group?: string};
const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {contributes: {
    commands: {command: string, icon?: string}[],
    viewsContainers: {activitybar: {id: string, icon: string}[]},
    views: Record<string, {id: string}[]>,
    viewsWelcome: {view: string, contents: string}[],
    menus: Record<string, Menu[]>,
    keybindings: {command: string, when: string}[]
}};

/** Evaluates the `view == …` and `viewItem == … / =~ /…/` clauses of a menu's `when` (the only ones item menus use). */
function shows(menu: Menu, view: string, item: string): boolean {
    return (menu.when ?? "").split("&&").map((clause) => clause.trim()).every((clause) => {
        const equals = /^(view|viewItem) == (\S+)$/.exec(clause);
        if (equals != null)
            return (equals[1] === "view" ? view : item) === equals[2];
        const matches = /^viewItem =~ \/(.+)\/$/.exec(clause);
        if (matches != null)
            return new RegExp(matches[1]!).test(item);
        return true;
    });
}

test("manifest: the container's views are the ones the code fills, every item action is reachable inline or by menu, and hidden "
    + "from the palette", () => {
    const {contributes} = manifest;
    const container = contributes.viewsContainers.activitybar[0]!;
    assert.ok(fs.existsSync(path.join(repoRoot, container.icon)));
    assert.deepEqual(contributes.views[container.id]!.map((view) => view.id), Object.values(sidebarViewIds));
    const contributed = new Set(contributes.commands.map((command) => command.command));
    const itemMenus = contributes.menus["view/item/context"]!;
    for (const menu of [...itemMenus, ...contributes.menus["view/title"]!, ...contributes.keybindings])
        assert.ok(contributed.has(menu.command), menu.command);
    const hidden = new Set(contributes.menus.commandPalette!.filter((entry) => entry.when === "false").map((entry) => entry.command));
    for (const id of Object.values(commandIds).filter((id) => id.startsWith("localResponses.sidebar.")))
        assert.ok(hidden.has(id), `${id} acts on a row: not in the palette`);
    // Every inline action has an icon, and every row kind the views produce has its actions.
    for (const menu of itemMenus.filter((entry) => entry.group?.startsWith("inline")))
        assert.ok(contributes.commands.find((command) => command.command === menu.command)!.icon != null, menu.command);
    const actions = (view: string,
        row: SidebarRow) => itemMenus.filter((menu) => shows(menu, view, row.contextValue ?? "")).map((menu) => menu.command);
    const [loaded, recent,
        downloaded] = modelRows({recent: ["/r.gguf"], downloaded: [{path: "/d.gguf", bytes: 1}], loadedPath: "/l.gguf", loadingPath: null});
    assert.ok(!actions(sidebarViewIds.models, loaded!).includes(commandIds.sidebarLoadModel), "the loaded model is not offered again");
    assert.ok(actions(sidebarViewIds.models, downloaded!).includes(commandIds.sidebarDeleteModel));
    assert.ok(!actions(sidebarViewIds.models, recent!).includes(commandIds.sidebarDeleteModel),
        "a file not downloaded here is never deleted");
    assert.ok(actions(sidebarViewIds.models, recent!).includes(commandIds.sidebarForgetModel));
    assert.deepEqual(new Set(actions(sidebarViewIds.responses, responseRows([summary("r")], "c", String)[0]!)),
        new Set([commandIds.sidebarOpenResponse, commandIds.sidebarDeleteResponse]));
    const [active, finished] = jobRows([{id: "a", status: "in_progress", createdAt: 2, model: "m", eventCount: 1, cancellable: true,
        timings: null}, {id: "f", status: "completed", createdAt: 1, model: "m", eventCount: 1, cancellable: false, timings: null}], "c");
    assert.ok(actions(sidebarViewIds.jobs, active!).includes(commandIds.sidebarCancelJob));
    assert.ok(!actions(sidebarViewIds.jobs, finished!).includes(commandIds.sidebarCancelJob));
    // Delete (Cmd+Backspace) acts on the focused row of each list view.
    assert.deepEqual(contributes.keybindings.map((binding) => binding.when).sort(),
        [sidebarViewIds.jobs, sidebarViewIds.models, sidebarViewIds.responses].map((id) => `focusedView == ${id}`));
    for (const welcome of contributes.viewsWelcome)
        for (const [, command] of welcome.contents.matchAll(/\(command:([^)]+)\)/g))
            assert.ok(contributed.has(command!), command);
});
