import type {PromptOverflow} from "../protocol/errors.js";

/** Engine failures with a meaning the layers above map to API errors. */
export class EngineError extends Error {
    public constructor(
        public readonly kind: EngineErrorKind,
        message: string,
        /** For upstream failures: the upstream's HTTP status (429/503 are passed on) and its `Retry-After` in seconds. */
        public readonly details: {
            status?: number, retryAfterSeconds?: number, tool?: string,
            /** `model_not_found`: the name asked for; `model_memory_exceeded`, `model_crashed`: the model's id. */
            model?: string,
            /** `model_not_found`: the names the library serves. */
            served?: readonly string[],
            /** `model_memory_exceeded`: the model's estimated bytes and the budget. */
            memory?: {requiredBytes: number, budgetBytes: number},
            /** `context_overflow`, where the prompt was measured: its tokens (or a lower bound) and the context's. */
            overflow?: PromptOverflow,
            /** `unsupported`: the request field the model or engine cannot honour. */
            param?: string
        } = {}
    ) {
        super(message);
        this.name = "EngineError";
    }
}

export type EngineErrorKind =
    | "not_ready" | "queue_full" | "context_overflow" | "aborted" | "load_failed"
    /** The request names no model of the library (404, listing the names it serves). */
    | "model_not_found"
    /** The model cannot be loaded within the memory budget, even with every other model unloaded (503). */
    | "model_memory_exceeded"
    /** The model's own process ended under its request (a native crash, an out-of-memory kill): 503, the next request loads it again. */
    | "model_crashed"
    /** A tool's parameters or the output schema cannot be compiled to the engine's grammar (400, before evaluation). */
    | "invalid_schema"
    /** No upstream server could be reached (502). */
    | "upstream_unavailable"
    /** The upstream answered 429 or 503 (passed on with its Retry-After). */
    | "upstream_busy"
    /** The upstream sent nothing for longer than the configured timeout (504). */
    | "upstream_timeout"
    /** The upstream refused the request as invalid (400). */
    | "upstream_rejected"
    /** Any other upstream failure: an unexpected status or a malformed stream (502). */
    | "upstream_error"
    /**
     * The model or engine cannot do what the request asks (a suffix to a model without fill-in-the-middle tokens,
     * embeddings from an upstream): 400, before any evaluation.
     */
    | "unsupported";
