import type {ChatHistoryItem, LlamaChat, LlamaCompletion, LlamaContextSequence, LlamaGrammar, LlamaModel, Token} from "node-llama-cpp";
import {toChatModelFunctions} from "./chatHistory.js";
import type {AfterDispatch} from "./AfterDispatch.js";
import {AnswerTokenBudget} from "./AnswerTokenBudget.js";
import type {BusyPoll} from "./BusyPoll.js";
import {CallArgumentsStream} from "./CallArgumentsStream.js";
import {EngineError} from "../errors.js";
import type {PlainCompletion} from "./plainCompletion.js";
import {prefillPrompt} from "./PromptPrefill.js";
import {StopSequenceDetector} from "./StopSequenceDetector.js";
import {scoreAnswerTokens} from "./tokenLogprobs.js";
import type {GenerationEvent, GenerationRequest, GenerationResult, PromptProgress} from "../types.js";

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

/** One generation on a leased sequence, streaming each chunk to `request.onEvent` as it is produced. */
export async function runGeneration({chat, plain, sequence, history, prompt, promptStepTokens, contextSize, request, onTokens, grammar,
    thinks, stopSequences = [], afterDispatch, busyPoll, onAnswer}: RunGenerationOptions): Promise<GenerationResult> {
    const promptTokens = prompt.length;
    // Ends the generation early: a stop sequence was seen, or the event consumer failed.
    const stopSignal = new AbortController();
    const events = new DeferredEvents(request.onEvent, afterDispatch, () => stopSignal.abort());
    const emit = (event: GenerationEvent) => events.emit(event);
    const started = performance.now();
    let firstTokenAt: number | null = null;
    let reasoningTokens = 0;
    let inThought = false;
    const meterBefore = sequence.tokenMeter.getState();
    const predictionsBefore = {...sequence.tokenPredictions};

    const roomLeft = contextSize - promptTokens;
    const maxTokens = Math.max(1, Math.min(request.maxOutputTokens ?? roomLeft, roomLeft));
    const sampling = request.sampling ?? {};
    const functions = grammar == null ? toChatModelFunctions(callableTools(request)) : undefined;
    const thoughtBudget = thinks ? request.thoughtBudget ?? defaultThoughtBudget(maxTokens) : request.thoughtBudget;
    const callStream = new CallArgumentsStream(emit);
    /** The tokens behind `text` events, scored after generation when logprobs are asked for. */
    const answerTokens: Token[] = [];
    // Stop sequences (the operator's and the request's) end the answer as an end-of-turn would; the generation is aborted
    // once one is seen.
    const stops = new StopSequenceDetector(grammar == null ? [...stopSequences, ...request.stopSequences ?? []] : []);
    const signal = anySignal(request.signal, stopSignal.signal);
    let answer = "";
    const emitText = (text: string) => {
        if (text === "")
            return;
        if (inThought) {
            inThought = false;
            emit({type: "thought.end"});
        }
        answer += text;
        emit({type: "text", text});
    };

    /** Caps a plain answer at maxTokens (see AnswerTokenBudget). */
    const budget = new AnswerTokenBudget(maxTokens);
    /** The text of the part of a release the budget kept, when it cut one. */
    const keptText = (tokens: readonly Token[]) => detokenizeAfter(sequence.model, tokens,
        budget.taken.slice(0, budget.taken.length - tokens.length));
    const cadence = busyPoll?.follow();
    let prefilled: PromptProgress | undefined;
    const countTokens = (tokens: readonly Token[]) => {
        if (tokens.length === 0)
            return;
        if (firstTokenAt == null && prefilled != null) {
            // The prompt's last step was evaluated with the first output token: the prompt is all in.
            request.onPromptProgress?.({...prefilled, evaluated: prefilled.total});
        }
        firstTokenAt ??= performance.now();
        cadence?.tokens();
        onTokens?.(tokens.length);
    };
    const onAnswerChunk = (tokens: readonly Token[], text: string) => {
        if (stops.stopped)
            return;
        answerTokens.push(...tokens);
        emitText(stops.push(text));
        if (stops.stopped)
            stopSignal.abort();
    };
    const common = {
        maxTokens,
        temperature: sampling.temperature ?? 1,
        topP: sampling.topP,
        seed: sampling.seed,
        signal,
        stopOnAbortSignal: true,
        // Off unless asked: node-llama-cpp's default (the last 64 tokens at a penalty of 1) changes no logit but is
        // recomputed on every token.
        repeatPenalty: sampling.presencePenalty || sampling.frequencyPenalty
            ? {presencePenalty: sampling.presencePenalty, frequencyPenalty: sampling.frequencyPenalty}
            : false as const
    };

    let response: {
        response: string, functionCalls?: ReadonlyArray<{functionName: string, params?: unknown}>, metadata: {stopReason: string}
    };
    try {
        prefilled = await prefillPrompt(sequence, prompt, {maxStepTokens: promptStepTokens, signal, onProgress: request.onPromptProgress});
        if (plain != null) {
            let chunkTokens: Token[] = [];
            let chunkCut = false;
            // Without operator stop sequences nothing on the token loop needs the answer's text, so it is detokenized
            // with the events, off the loop, instead of by `onTextChunk` (two native detokenizations per token before the
            // next evaluation is queued). Measured on stories260K, served tokens/s in 118 alternating pairs: +2.2 %
            // (median), faster in 74.
            const textOffLoop = !stops.active;
            response = await plain.completion.generateCompletionWithMeta(plain.input, {
                ...common,
                customStopTriggers: plain.stopTriggers,
                // The engine refuses a prompt that fills the context, and maxTokens ends the answer at its edge: nothing
                // is ever shifted out. (Its default would keep a tenth of the context free by cutting the prompt's start.)
                contextShiftSize: 1,
                disableContextShift: true,
                // Each release of tokens calls onToken, then onTextChunk with their text.
                onToken: (released) => {
                    const tokens = budget.take(released);
                    chunkCut = tokens.length < released.length;
                    countTokens(tokens);
                    if (textOffLoop)
                        events.run(() => onAnswerChunk(tokens, detokenizeAfter(sequence.model, tokens, answerTokens)));
                    else
                        chunkTokens = tokens;
                },
                onTextChunk: textOffLoop ? undefined : (text) => onAnswerChunk(chunkTokens, chunkCut ? keptText(chunkTokens) : text)
            });
        } else {
            response = await chat.generateResponse(history, {
                ...common,
                // Without a budget a thought may never close (the tiny reasoning model cannot write `</think>`).
                budgets: thoughtBudget == null ? undefined : {thoughtTokens: thoughtBudget},
                ...(grammar != null
                    ? {grammar}
                    : functions != null
                    ? {
                        functions,
                        documentFunctionParams: true,
                        maxParallelFunctionCalls: request.maxToolCalls,
                        onFunctionCallParamsChunk: (chunk) => callStream.push(chunk.callIndex, chunk.functionName, chunk.paramsChunk,
                            chunk.done)
                    }
                    : {}),
                onResponseChunk: (chunk) => {
                    countTokens(chunk.tokens);
                    if (chunk.type === "segment" && chunk.segmentType === "thought") {
                        reasoningTokens += chunk.tokens.length;
                        inThought = true;
                        if (chunk.text !== "")
                            emit({type: "thought", text: chunk.text});
                        if (chunk.segmentEndTime != null) {
                            inThought = false;
                            emit({type: "thought.end"});
                        }
                    } else if (chunk.type == null)
                        onAnswerChunk(chunk.tokens, chunk.text);
                }
            });
        }
    } catch (error) {
        events.finish();
        if (request.signal?.aborted)
            throw new EngineError("aborted", "The generation was aborted.");
        if (error instanceof Error && /context shift|does not fit|too long|too small/i.test(error.message))
            throw new EngineError("context_overflow", `The input does not fit the context of ${contextSize} tokens: ${error.message}`);
        throw error;
    } finally {
        cadence?.end();
    }
    if (!stops.stopped)
        emitText(stops.flush());
    if (inThought)
        emit({type: "thought.end"});
    // Every event reaches the consumer before the result does.
    events.finish();

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
        arguments: callStream.argumentsOf(index) ?? JSON.stringify(call.params ?? {})
    }));
    const stop = stops.stopped ? "stopSequence" : response.metadata.stopReason;
    const text = stops.active || budget.overran ? answer : response.response;
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

/**
 * A generation's events on their way to `request.onEvent`, in order: deferred until the next evaluation is
 * dispatched (see AfterDispatch), except the first, which goes out at once (it is the time to first token).
 * A consumer that throws stops the generation; its error is the generation's.
 */
class DeferredEvents {
    private failure: {error: unknown} | undefined;
    private first = true;

    public constructor(
        private readonly consumer: ((event: GenerationEvent) => void) | undefined,
        private readonly afterDispatch: AfterDispatch,
        private readonly onFailure: () => void
    ) {}

    public emit(event: GenerationEvent): void {
        if (this.consumer == null)
            return;
        if (!this.first) {
            this.afterDispatch.defer(() => this.deliver(event));
            return;
        }
        this.first = false;
        this.deliver(event);
    }

    /**
     * Runs `work`, which makes events, where they are delivered: at once until the first event is out (always, when
     * nobody consumes them), then deferred with them, in order. A throw stops the generation as a failing consumer does.
     */
    public run(work: () => void): void {
        if (this.first) {
            this.attempt(work);
            return;
        }
        this.afterDispatch.defer(() => this.attempt(work));
    }

    /** Delivers what is still queued; throws the consumer's error, if it failed. */
    public finish(): void {
        this.afterDispatch.drain();
        if (this.failure != null)
            throw this.failure.error;
    }

    private deliver(event: GenerationEvent): void {
        this.attempt(() => this.consumer!(event));
    }

    private attempt(work: () => void): void {
        if (this.failure != null)
            return;
        try {
            work();
        } catch (error) {
            this.failure = {error};
            this.onFailure();
        }
    }
}

/**
 * The text of `tokens` as `LlamaCompletion` gives it to `onTextChunk`: detokenized after the answer's tokens before them
 * (`previous`), so that a SentencePiece word keeps its leading space. node-llama-cpp reads only the last few of those
 * (3 in 3.21.1); the slice bounds the copy.
 */
function detokenizeAfter(model: LlamaModel, tokens: readonly Token[], previous: readonly Token[]): string {
    return model.detokenize(tokens, false, previous.slice(-recentTokensForDetokenizing));
}

/** More than node-llama-cpp's `maxRecentDetokenizerTokens`, which it does not export. */
const recentTokensForDetokenizing = 8;

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
