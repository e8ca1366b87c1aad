import type {EngineStats, ModelInfo} from "../../engine/types.js";
import {chatFormatWarning, describeChatFormat} from "../../host/chatFormatText.js";
import {describeVscodeChat, type VscodeChatState} from "../chatProvider/vscodeChatState.js";
import type {ControllerState} from "../controller/controllerState.js";
import {backendNote, describeEngine} from "../status/engineDescription.js";
import {formatCount} from "../status/statusView.js";
import type {SidebarRow} from "./SidebarRow.js";

export type ServerFacts = {
    state: ControllerState,
    engine: EngineStats | null,
    /** CPU threads the engine evaluates with, and whether that was the default (cores − 1). */
    threads: {count: number, isDefault: boolean},
    totals: {inputTokens: number, outputTokens: number, cachedTokens: number, generations: number},
    /** Whether the served model is offered to the editor's own chat (`vscode.lm`). */
    vscodeChat: VscodeChatState
};

/** The Server view: state, endpoint, model, context, threads, queue, totals and the editor's chat, one fact per row. */
export function serverRows(facts: ServerFacts): SidebarRow[] {
    const {state, engine} = facts;
    const model: ModelInfo | null = state.model;
    return [
        {id: "server.state", label: "State", description: describeServer(state), icon: serverIcon(state),
            contextValue: `server.${state.server}`,
            tooltip: state.lastError ?? undefined},
        {id: "server.endpoint", label: "Endpoint", description: state.endpoint ?? "not listening", icon: "link",
            contextValue: state.endpoint != null ? "server.endpoint" : undefined, target: state.endpoint ?? undefined},
        {id: "server.model", label: "Model", description: describeModel(state), icon: "symbol-constant",
            tooltip: model?.path ?? state.pendingModelPath ?? undefined,
            contextValue: model != null ? "server.model" : "server.noModel"},
        ...chatFormatRows(model),
        {
            id: "server.engine", label: "Engine", description: describeEngine(state.engineKind, model),
            // A model only part of which fits on the GPU: a warning, and what would fit it whole.
            icon: backendNote(model).backendNote != null ? "warning" : state.engineKind === "upstream" ? "cloud" : "vm",
            tooltip: backendNote(model).backendNote
        },
        {id: "server.context", label: "Context", icon: "symbol-array",
            description: model != null ? `${model.contextSize} tokens × ${model.sequences} sequences (trained ${model.trainContextSize})`
                : "–"},
        {id: "server.threads", label: "Threads", icon: "server-process",
            description: `${facts.threads.count}${facts.threads.isDefault ? " (cores − 1)" : ""}`},
        {id: "server.queue", label: "Queue", icon: "list-ordered",
            description: engine == null ? "–"
                : `${engine.queueDepth} waiting (limit ${engine.queueLimit}) `
                    + `· ${engine.sequencesBusy}/${engine.sequencesTotal} sequences busy`},
        {id: "server.totals", label: "Since start", icon: "graph",
            description: `${facts.totals.generations} responses · ${formatCount(facts.totals.inputTokens)} in `
                + `(${formatCount(facts.totals.cachedTokens)} cached) / ${formatCount(facts.totals.outputTokens)} out`},
        {id: "server.vscodeChat", label: "VS Code chat", icon: "comment-discussion", description: describeVscodeChat(facts.vscodeChat)}
    ];
}

/** The local model's chat format, with a warning icon and the way out where its own tool calls are not understood. */
function chatFormatRows(model: ModelInfo | null): SidebarRow[] {
    const format = model?.chatFormat;
    if (model == null || format == null)
        return [];
    return [{
        id: "server.chatFormat", label: "Chat format", description: describeChatFormat(format),
        icon: format.toolCallsUnderstood ? "symbol-namespace" : "warning", tooltip: chatFormatWarning(model.id, format) ?? undefined
    }];
}

function describeServer(state: ControllerState): string {
    const serving = state.server === "listening" ? "listening" : state.server;
    if (state.engineKind === "upstream")
        return `${serving} · ${upstreamState(state.engine)}${state.engine === "unloaded" && state.server === "listening" ? " (503)" : ""}`;
    if (state.engine === "loading")
        return `${serving} · loading model${state.loadProgress != null ? ` ${Math.round(state.loadProgress * 100)}%` : ""}`;
    if (state.engine === "failed")
        return `${serving} · model failed to load`;
    if (state.model == null)
        return state.server === "listening" ? "listening · no model (503)" : `${serving} · no model`;
    return `${serving} · model ready`;
}

function serverIcon(state: ControllerState): string {
    if (state.engine === "failed")
        return "error";
    if (state.engine === "loading" || state.server === "starting")
        return "loading~spin";
    if (state.server === "listening")
        return state.model != null ? "pass-filled" : "circle-slash";
    return "debug-stop";
}

function describeModel(state: ControllerState): string {
    if (state.model != null)
        return `${state.model.id} (${state.model.chatWrapper})`;
    if (state.pendingModelPath != null)
        return `${baseName(state.pendingModelPath)} (${state.engine === "failed" ? "failed" : "loading"})`;
    return "none";
}

export function baseName(modelPath: string): string {
    return modelPath.split(/[\\/]/).at(-1)!;
}

/** The upstream engine's state in words: it connects to servers rather than loading a file. */
export function upstreamState(engine: ControllerState["engine"]): string {
    switch (engine) {
        case "loading": return "connecting to the upstreams";
        case "failed": return "upstream connection failed";
        case "ready": return "upstream connected";
        default: return "upstream disconnected";
    }
}
