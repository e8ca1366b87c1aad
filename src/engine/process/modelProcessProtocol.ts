import {EngineError, type EngineErrorKind} from "../EngineError.js";
import type {LlamaEngineOptions} from "../llama/LlamaEngine.js";
import type {CompletionRequest, CompletionResult, EmbeddingRequest, EmbeddingResult} from "../completionTypes.js";
import type {ActivitySnapshot} from "../GenerationActivity.js";
import type {
    ChatTurn, EngineState, EngineStats, GenerationEvent, GenerationRequest, GenerationResult, GenerationSummary, LoadProgress,
    ModelInfo, PromptProgress, PromptShape, ToolSpec
} from "../types.js";

/**
 * The messages between `ProcessEngine` (the server's process) and a model's own process (`modelProcessMain.ts`), sent over
 * Node's IPC channel with the structured-clone serialization (Infinity and undefined survive it, functions do not: the
 * callbacks of a request stay in the server's process and its events come back as messages).
 */

/** A request without what cannot cross a process: its signal and its callbacks. */
export type PlainRequest = Omit<GenerationRequest, "signal" | "onEvent" | "onPromptProgress">;
export type PlainShape = Omit<PromptShape, "onQueued">;
/** A raw completion or embedding request without its signal and text callback (its text comes back as `text` events). */
export type PlainRaw<R> = Omit<R, "signal" | "onText">;

/** A call the server makes, answered by one `result` or `error` with its `call` number. */
export type CallMessage =
    | {type: "load", call: number, source: string}
    | {type: "count", call: number, turns: ChatTurn[], tools: ToolSpec[]}
    | {type: "acquire", call: number, turns: ChatTurn[], tools: ToolSpec[], shape: PlainShape}
    | {type: "generate", call: number, lease: number, request: PlainRequest}
    | {type: "complete", call: number, request: PlainRaw<CompletionRequest>}
    | {type: "embed", call: number, request: PlainRaw<EmbeddingRequest>}
    | {type: "forget", call: number, partition?: string}
    | {type: "dispose", call: number};

/** A call as its caller writes it; the call's number is added when it is sent. */
export type CallRequest = CallMessage extends infer M ? M extends CallMessage ? Omit<M, "call"> : never : never;

/** A `LlamaEngine`'s options as they cross into its process: no activity, no log function (both stay in the server). */
export type ModelProcessInit = Omit<LlamaEngineOptions, "activity" | "promptCache" | "binding"> & {
    promptCache?: Omit<NonNullable<LlamaEngineOptions["promptCache"]>, "log">
};

/** What the native backend is loaded with, the same for every model of a library. */
export type WarmBinding = Required<Pick<LlamaEngineOptions, "gpu">> & {maxThreads: number};

export type ParentMessage =
    /** First: load the native backend now (a spare process waits for its model with it loaded). */
    | {type: "warm", binding: WarmBinding}
    /** Then, once: the model's engine settings (the process becomes that model's). */
    | {type: "init", options: ModelProcessInit}
    | CallMessage
    /** The call's signal fired: the model process aborts it (an acquire stops waiting, a generation stops). */
    | {type: "abort", call: number}
    | {type: "release", lease: number};

export type AcquiredLease = {lease: number, promptTokens: number, cachedPrefixTokens: number};

export type ChildMessage =
    | {type: "result", call: number, value: unknown, stats: EngineStats}
    | {type: "error", call: number, error: SentError, stats: EngineStats}
    /** Progress of a call: a load's, a generation's events and prompt progress, an acquire that waits for a sequence. */
    | {type: "progress", call: number, progress: LoadProgress}
    | {type: "event", call: number, event: GenerationEvent}
    | {type: "prompt", call: number, progress: PromptProgress}
    | {type: "queued", call: number, stats: EngineStats}
    | {type: "state", state: EngineState, model: ModelInfo | null, stats: EngineStats}
    | {type: "stats", stats: EngineStats}
    | {type: "generation", summary: GenerationSummary}
    | {type: "activity", snapshot: ActivitySnapshot}
    | {type: "log", line: string}
    /** Sent every `heartbeatIntervalMs` whatever the process does: silence means it hangs (`ProcessWatchdog`). */
    | {type: "heartbeat"};

/** What each call answers with. */
export type CallResults = {
    load: ModelInfo, count: number, acquire: AcquiredLease, generate: GenerationResult, complete: CompletionResult,
    embed: EmbeddingResult, forget: number, dispose: null
};

/** An error as it crosses: an `EngineError` keeps its kind and details, anything else its message. */
export type SentError = {message: string, kind?: EngineErrorKind, details?: EngineError["details"]};

export function sendableError(error: unknown): SentError {
    if (error instanceof EngineError)
        return {message: error.message, kind: error.kind, details: error.details};
    return {message: error instanceof Error ? error.message : String(error)};
}

export function receivedError(sent: SentError): Error {
    return sent.kind != null ? new EngineError(sent.kind, sent.message, sent.details) : new Error(sent.message);
}

/** The request as it crosses: every field but the signal and the callbacks. */
export function plainRequest(request: GenerationRequest): PlainRequest {
    const {signal: _signal, onEvent: _onEvent, onPromptProgress: _onPromptProgress, ...plain} = request;
    return withoutFunctions(plain);
}

/** The shape as it crosses (`generateOnLease` passes the whole request as the shape). */
export function plainShape(shape: PromptShape): PlainShape {
    return withoutFunctions(shape as Record<string, unknown>) as PlainShape;
}

/** A raw request as it crosses: every field but the signal and the text callback. */
export function plainRaw<R extends object>(request: R): PlainRaw<R> {
    return withoutFunctions(request);
}

/** Top-level fields holding a function or a signal dropped: structured clone refuses both. */
function withoutFunctions<T extends object>(value: T): T {
    return Object.fromEntries(Object.entries(value)
        .filter(([, field]) => typeof field !== "function" && !(field instanceof AbortSignal))) as T;
}
