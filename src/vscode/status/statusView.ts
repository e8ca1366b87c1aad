import type {PromptProgressView} from "./PromptProgressTracker.js";

/** Everything the status bar shows, gathered by the extension from the host. */
export type StatusModel = {
    server: "stopped" | "starting" | "listening",
    engine: "unloaded" | "loading" | "ready" | "failed",
    modelName: string | null,
    /** 0..1 while loading. */
    loadProgress: number | null,
    /** Generations running now. */
    active: number,
    tokensPerSecond: number,
    endpoint: string | null,
    /** Which engine answers (`describeEngine`); absent: not shown. */
    answeredBy?: string,
    /** A local model only part of which is on the GPU, and what would fit it whole (`partialOffloadNote`); absent: none. */
    backendNote?: string,
    /** The local model's chat format in words (`describeChatFormat`); absent: not shown. */
    chatFormat?: string,
    /** `upstream`: the engine connects to servers instead of loading a file, and the words say so. Absent: local. */
    engineKind?: "local" | "upstream",
    /** With a model library: the models loaded now and how many it has (`modelName` is the one that answered last). */
    library?: {loaded: readonly string[], total: number},
    totals: {inputTokens: number, outputTokens: number, cachedTokens: number, generations: number},
    /** The last finished generation: the model that generated it (where the engine serves several) and its tokens. */
    lastResponse?: {model: string | null, inputTokens: number, outputTokens: number} | null,
    activeJobs: number | null,
    queueDepth: number,
    /** Prompts being evaluated now (a long prompt on a full-size model takes minutes before its first token). */
    prompt?: PromptProgressView | null
};

export type StatusView = {text: string, tooltip: string, state: "stopped" | "loading" | "ready" | "generating" | "failed"};

/** The status bar's text and tooltip: one place that decides what a person reads there. */
export function formatStatus(model: StatusModel): StatusView {
    const name = model.modelName ?? (model.library != null ? `${model.library.total} models`
        : model.engineKind === "upstream" ? "upstream" : "no model");
    const state = statusState(model);
    let text: string;
    switch (state) {
        case "loading":
            text = model.engineKind === "upstream" ? `$(loading~spin) ${name}: connecting`
                : `$(loading~spin) ${name}: loading${model.loadProgress != null ? ` ${Math.round(model.loadProgress * 100)}%` : ""}`;
            break;
        case "generating":
            text = model.prompt != null && model.tokensPerSecond === 0
                ? `$(sync~spin) ${name}: prompt ${formatPromptProgress(model.prompt)}`
                : `$(pulse) ${name}: ${formatRate(model.tokensPerSecond)} tok/s`;
            break;
        case "ready":
            // Starting is not stopped: a library's server opens its store and scans its folder first (seconds after a restart).
            text = model.server === "listening" ? `$(check) ${name}: ready`
                : model.server === "starting" ? `$(loading~spin) ${name}: starting the server` : `$(debug-pause) ${name}: server stopped`;
            break;
        case "failed":
            text = model.engineKind === "upstream" ? `$(error) ${name}: upstream connection failed` : `$(error) ${name}: failed to load`;
            break;
        default:
            // Listening without a model (after Unload Model) is not the same as off: every request gets 503.
            if (model.modelName == null) {
                const what = model.engineKind === "upstream" ? "upstream disconnected" : "no model";
                text = `$(circle-slash) Local Responses: ${what}${model.server === "listening" ? " (serving 503)" : ""}`;
            } else
                text = `$(circle-slash) ${name}: stopped`;
    }

    const lines = [
        `Local Responses: ${describeState(state, model)}`,
        `Endpoint: ${model.endpoint ?? "not listening"}`,
        ...(model.answeredBy != null ? [`Engine: ${model.answeredBy}`] : []),
        ...(model.backendNote != null ? [`GPU: ${model.backendNote}`] : []),
        ...(model.chatFormat != null ? [`Chat format: ${model.chatFormat}`] : []),
        ...(model.library != null
            ? [`Models loaded: ${model.library.loaded.join(", ") || "none"} (of ${model.library.total} in the library; each loads when a `
                + "request names it)"]
            : []),
        `Tokens since start: ${formatCount(model.totals.inputTokens)} in / ${formatCount(model.totals.outputTokens)} out `
            + `(${model.totals.generations} responses)`,
        ...(model.library != null && model.lastResponse?.model != null
            ? [`Last response: ${model.lastResponse.model}, ${formatCount(model.lastResponse.inputTokens)} in / `
                + `${formatCount(model.lastResponse.outputTokens)} out`]
            : []),
        `Cached input tokens: ${formatCount(model.totals.cachedTokens)}`,
        `Active jobs: ${model.activeJobs == null ? "n/a" : model.activeJobs}`,
        `Queue depth: ${model.queueDepth}`,
        ...(model.prompt != null ? [promptLine(model.prompt)] : []),
        "",
        "Click to open the inspector"
    ];
    return {text, tooltip: lines.join("\n"), state};
}

function statusState(model: StatusModel): StatusView["state"] {
    if (model.engine === "loading")
        return "loading";
    if (model.engine === "failed")
        return "failed";
    if (model.engine === "ready")
        return model.active > 0 ? "generating" : "ready";
    return "stopped";
}

function describeState(state: StatusView["state"], model: StatusModel): string {
    switch (state) {
        case "generating":
            return `generating (${model.active} running, ${formatRate(model.tokensPerSecond)} tokens/s)`;
        case "ready":
            return model.server === "listening" ? "ready"
                : model.server === "starting" ? "model loaded, server starting" : "model loaded, server stopped";
        case "stopped":
            if (model.server === "listening")
                return model.engineKind === "upstream"
                    ? "disconnected from the upstreams; requests get 503 model_not_loaded until Load Model… connects again"
                    : "no model loaded; requests get 503 model_not_loaded until one is";
            return model.server === "starting" ? "starting" : "stopped";
        default:
            return state;
    }
}

/** The tooltip's line on the prompts being evaluated. */
function promptLine(prompt: PromptProgressView): string {
    const prompts = prompt.responses > 1 ? ` (${prompt.responses} prompts)` : "";
    return `Prompt evaluation: ${prompt.evaluated} of ${prompt.total} tokens${prompts}`;
}

/** `4.1k/12.7k tokens (32%)`: how far the prompts being evaluated are. */
export function formatPromptProgress(prompt: PromptProgressView): string {
    const share = prompt.total > 0 ? Math.floor(prompt.evaluated / prompt.total * 100) : 0;
    return `${formatCount(prompt.evaluated)}/${formatCount(prompt.total)} tokens (${share}%)`;
}

export function formatRate(perSecond: number): string {
    return perSecond >= 100 ? String(Math.round(perSecond)) : perSecond.toFixed(1);
}

export function formatCount(count: number): string {
    if (count >= 1_000_000)
        return `${(count / 1_000_000).toFixed(1)}M`;
    if (count >= 10_000)
        return `${(count / 1000).toFixed(1)}k`;
    return String(count);
}
