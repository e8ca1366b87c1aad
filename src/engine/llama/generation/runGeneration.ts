import type {ChatHistoryItem, LlamaChat, LlamaCompletion, LlamaContextSequence, LlamaGrammar, Token} from "node-llama-cpp";
import {toChatModelFunctions} from "../prompt/chatHistory.js";
import type {AfterDispatch} from "../runtime/AfterDispatch.js";
import {AnswerAccountant} from "./AnswerAccountant.js";
import type {BusyPoll} from "../runtime/BusyPoll.js";
import {CallArgumentsStream} from "./CallArgumentsStream.js";
import {EngineError} from "../../EngineError.js";
import type {TextCallFormat} from "../families/textCallFormats.js";
import {generateChat, generatePlain, type CommonGenerationOptions, type StrategyResponse} from "./generationStrategies.js";
import type {PlainCompletion} from "./plainCompletion.js";
import {prefillPrompt} from "../runtime/PromptPrefill.js";
import {scoreAnswerTokens} from "./tokenLogprobs.js";
import type {GenerationRequest, GenerationResult, SamplingOptions} from "../../types.js";

export type RunGenerationOptions = {
    chat: LlamaChat,
    /**
     * Set for a plain-text turn (see plainCompletion.ts): the answer is generated with `LlamaCompletion` on the rendered
     * prompt instead of with `chat`.
     */
    plain?: PlainCompletion & {completion: LlamaCompletion},
    sequence: LlamaContextSequence,
    history: ChatHistoryItem[],
    /** The rendered prompt's tokens, as LlamaChat renders them and LlamaCompletion is given them (evaluated in abortable steps first). */
    prompt: readonly number[],
    /** Largest prompt-evaluation step: the context's batch size. */
    promptStepTokens: number,
    contextSize: number,
    request: GenerationRequest,
    /** Constrains the answer (structured output); exclusive with functions in node-llama-cpp. */
    grammar?: LlamaGrammar,
    /** The chat wrapper produces thought segments: a thought budget must always be set. */
    thinks?: boolean,
    /** The chat's wrapper generates freely; the model's calls are read from its text in this format (textCallWrapper.ts). */
    textCalls?: TextCallFormat,
    /** Called with the number of tokens in each generated chunk, as it is produced. */
    onTokens?: (count: number) => void,
    /** Text that ends a plain-text answer as the model's own end of turn would (`--stop`). */
    stopSequences?: readonly string[],
    /** Where `request.onEvent` calls are deferred to, off the token loop's critical path (the context's hook). */
    afterDispatch: AfterDispatch,
    /** Keeps the event loop polling while this generation's tokens come fast. */
    busyPoll?: BusyPoll,
    /** Given a plain answer (no call, no thought, not cut by a stop sequence) and the tokens the model wrote for it. */
    onAnswer?: (text: string, tokens: readonly Token[]) => void
};

/**
 * One generation on a leased sequence, streaming each chunk to `request.onEvent` as it is produced: the prompt in
 * abortable steps, then the answer by the plain-completion or the chat strategy (generationStrategies.ts), both
 * accounted for by one `AnswerAccountant`; then the result, with its usage read from the sequence's token meter.
 */
export async function runGeneration({chat, plain, sequence, history, prompt, promptStepTokens, contextSize, request, onTokens, grammar,
    thinks, textCalls, stopSequences = [], afterDispatch, busyPoll, onAnswer}: RunGenerationOptions): Promise<GenerationResult> {
    const promptTokens = prompt.length;
    const started = performance.now();
    const meterBefore = sequence.tokenMeter.getState();
    const predictionsBefore = {...sequence.tokenPredictions};

    const roomLeft = contextSize - promptTokens;
    const maxTokens = Math.max(1, Math.min(request.maxOutputTokens ?? roomLeft, roomLeft));
    const sampling = request.sampling ?? {};
    const accountant = new AnswerAccountant({
        request, maxTokens, stopSequences, constrained: grammar != null, afterDispatch, busyPoll, onTokens
    });
    const callStream = new CallArgumentsStream((event) => accountant.emit(event));
    const signal = anySignal(request.signal, accountant.stopSignal);
    const common: CommonGenerationOptions = {
        maxTokens,
        temperature: sampling.temperature ?? 1,
        topP: sampling.topP,
        seed: sampling.seed,
        signal,
        stopOnAbortSignal: true,
        repeatPenalty: repeatPenaltyOf(sampling)
    };

    let response: StrategyResponse;
    try {
        accountant.prefilled = await prefillPrompt(sequence, prompt, {
            maxStepTokens: promptStepTokens, signal, onProgress: request.onPromptProgress
        });
        response = plain != null
            ? await generatePlain(plain, sequence, common, accountant)
            : await generateChat(chat, history, common, accountant, {
                grammar,
                functions: grammar == null ? toChatModelFunctions(callableTools(request)) : undefined,
                maxParallelFunctionCalls: request.maxToolCalls,
                callStream,
                textCalls: textCalls == null ? undefined : {format: textCalls, model: sequence.model},
                thoughtBudget: thinks ? request.thoughtBudget ?? defaultThoughtBudget(maxTokens) : request.thoughtBudget,
                promptTokens
            });
    } catch (error) {
        accountant.events.finish();
        if (request.signal?.aborted)
            throw new EngineError("aborted", "The generation was aborted.");
        if (error instanceof Error && /context shift|does not fit|too long|too small/i.test(error.message))
            throw new EngineError("context_overflow", `The input does not fit the context of ${contextSize} tokens: ${error.message}`);
        throw error;
    } finally {
        accountant.endCadence();
    }
    // Every event reaches the consumer before the result does.
    accountant.finish();

    const meterAfter = sequence.tokenMeter.getState();
    // At most maxTokens: a token past a plain answer's budget (see AnswerTokenBudget) was evaluated, but is no part of it.
    // The meter also counts predicted tokens the model evaluated and did not keep (speculative decoding): not output.
    const predicted = predictionsSince(sequence, predictionsBefore);
    const outputTokens = Math.min(maxTokens, meterAfter.usedOutputTokens - meterBefore.usedOutputTokens - predicted.unused);
    // The meter counts the last prompt token as an "output" evaluation (it yields the first sampled token).
    const evaluatedPrompt = meterAfter.usedInputTokens - meterBefore.usedInputTokens + (outputTokens > 0 ? 1 : 0);
    const cachedTokens = Math.max(0, Math.min(promptTokens, promptTokens - evaluatedPrompt));

    // The text the client saw streamed is the call's arguments (the parsed params may re-serialise differently).
    const calls = (response.functionCalls ?? []).map((call, index) => ({
        name: call.functionName,
        arguments: callStream.argumentsOf(call.index ?? index) ?? JSON.stringify(call.params ?? {})
    }));
    const {stops, budget, answerTokens, reasoningTokens, firstTokenAt} = accountant;
    const stop = stops.stopped ? "stopSequence" : response.metadata.stopReason;
    const text = stops.active || budget.overran ? accountant.answer : response.response;
    if (calls.length === 0 && reasoningTokens === 0 && stop !== "abort" && stop !== "stopSequence")
        onAnswer?.(text, answerTokens);
    const logprobs = request.logprobs == null || stop === "abort"
        ? undefined
        : await scoreAnswerTokens(sequence, answerTokens, request.logprobs.top, stop !== "maxTokens");
    return {
        stopReason: stop === "maxTokens" ? "length"
            : stop === "abort" ? "abort"
                : stop === "functionCalls" || calls.length > 0 ? "tool_calls"
                    : "stop",
        ...stops.stoppedAt != null && {stopSequence: stops.stoppedAt},
        text,
        calls,
        usage: {
            inputTokens: promptTokens, cachedTokens, outputTokens, reasoningTokens,
            ...sequence.tokenPredictor != null && {draftedTokens: predicted.drafted, acceptedTokens: predicted.accepted}
        },
        logprobs,
        timeToFirstTokenMs: firstTokenAt == null ? null : firstTokenAt - started
    };
}

/** The tools the model may call: a `required` mode naming some tools narrows the grammar to them. */
function callableTools(request: GenerationRequest) {
    const tools = request.tools ?? [];
    const names = request.toolMode?.type === "required" ? request.toolMode.names : undefined;
    return names == null ? tools : tools.filter((tool) => names.includes(tool.name));
}

/** Used only when the caller set none: half the output room, so an answer can follow the thought. */
function defaultThoughtBudget(maxTokens: number): number {
    return Math.max(1, Math.floor(maxTokens / 2));
}

/** Aborts when either signal does (AbortSignal.any is not in every Node 20 release). */
function anySignal(first: AbortSignal | undefined, second: AbortSignal): AbortSignal {
    if (first == null)
        return second;
    const controller = new AbortController();
    const abort = () => controller.abort();
    if (first.aborted || second.aborted)
        abort();
    first.addEventListener("abort", abort, {once: true});
    second.addEventListener("abort", abort, {once: true});
    return controller.signal;
}

/**
 * What the sequence's token predictor did since `before`: tokens it proposed that the model checked (`drafted`), those
 * confirmed (`accepted`), and those evaluated but not taken into the answer (`unused`: refuted, or validated and left).
 */
function predictionsSince(sequence: LlamaContextSequence, before: LlamaContextSequence["tokenPredictions"]) {
    const after = sequence.tokenPredictions;
    const drafted = after.validated - before.validated + after.refuted - before.refuted;
    return {drafted, accepted: after.validated - before.validated, unused: drafted - (after.used - before.used)};
}

/**
 * node-llama-cpp's `repeatPenalty` for the request's penalties: off unless asked, as node-llama-cpp's default (the last
 * 64 tokens at a penalty of 1) changes no logit but is recomputed on every token.
 */
export function repeatPenaltyOf(sampling: SamplingOptions): false | {presencePenalty?: number, frequencyPenalty?: number} {
    return sampling.presencePenalty || sampling.frequencyPenalty
        ? {presencePenalty: sampling.presencePenalty, frequencyPenalty: sampling.frequencyPenalty}
        : false;
}
