import type {GenerationEvent, GenerationRequest, PromptProgress} from "../../engine/types.js";
import type {CreateParams} from "../createRequest.js";
import {generationShape} from "./generationShape.js";
import type {PreparedResponse} from "./preparedResponse.js";

/** What the engine is told besides the request's settings: where its events and prompt progress go, what stops it. */
export type GenerationHooks = {
    onEvent: (event: GenerationEvent) => void,
    onPromptProgress?: (progress: PromptProgress) => void,
    signal?: AbortSignal
};

/** The engine request for a prepared response: its turns, tools, limits and sampling settings. */
export function generationRequest(prepared: PreparedResponse, hooks: GenerationHooks): GenerationRequest {
    const {params} = prepared;
    return {
        turns: prepared.turns,
        tools: params.toolChoice.offered,
        toolMode: params.toolChoice.mode ?? undefined,
        maxToolCalls: toolCallLimit(params),
        maxOutputTokens: params.maxOutputTokens ?? undefined,
        sampling: {
            temperature: params.temperature,
            topP: params.topP,
            seed: params.seed ?? undefined,
            presencePenalty: params.presencePenalty,
            frequencyPenalty: params.frequencyPenalty
        },
        ...generationShape(params),
        logprobs: params.logprobs ?? undefined,
        stopSequences: prepared.stopSequences,
        signal: hooks.signal,
        onEvent: hooks.onEvent,
        onPromptProgress: hooks.onPromptProgress
    };
}

/** Calls one generation may make: one for a named tool choice or without parallel calls, else `max_tool_calls`. */
function toolCallLimit(params: CreateParams): number | undefined {
    return params.toolChoice.singleCall || !params.parallelToolCalls ? 1 : params.maxToolCalls ?? undefined;
}
