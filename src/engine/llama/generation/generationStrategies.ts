import type {
    ChatHistoryItem, ChatModelFunctions, LlamaChat, LlamaCompletion, LlamaContextSequence, LlamaGrammar, LlamaModel, Token
} from "node-llama-cpp";
import {detokenizeAfter, type AnswerAccountant} from "./AnswerAccountant.js";
import type {CallArgumentsStream} from "./CallArgumentsStream.js";
import type {TextCallFormat} from "../families/textCallFormats.js";
import {AnswerAndThoughtReaders} from "./AnswerAndThoughtReaders.js";
import {unplacedTokens} from "./unplacedTokens.js";
import type {PlainCompletion} from "./plainCompletion.js";

/** The sampling, limits and abort signal both strategies generate with. */
export type CommonGenerationOptions = {
    maxTokens: number,
    temperature: number,
    topP?: number,
    seed?: number,
    signal: AbortSignal,
    stopOnAbortSignal: true,
    repeatPenalty: false | {presencePenalty?: number, frequencyPenalty?: number}
};

/**
 * What either strategy returns: the answer, the calls the model made (each with the number its stream events gave
 * it, where that is not its place among them), and why it stopped.
 */
export type StrategyResponse = {
    response: string,
    functionCalls?: ReadonlyArray<{functionName: string, params?: unknown, index?: number}>,
    metadata: {stopReason: string}
};

/**
 * A plain-text turn with `LlamaCompletion` on the rendered prompt (see plainCompletion.ts), stopping at the chat
 * wrapper's own stop triggers. Without stop sequences nothing on the token loop needs the answer's text, so it is
 * detokenized with the events, off the loop, instead of by `onTextChunk` (two native detokenizations per token before
 * the next evaluation is queued). Measured on stories260K, served tokens/s in 118 alternating pairs: +2.2 % (median),
 * faster in 74.
 */
export function generatePlain(plain: PlainCompletion & {completion: LlamaCompletion}, sequence: LlamaContextSequence,
    common: CommonGenerationOptions, accountant: AnswerAccountant): Promise<StrategyResponse> {
    let chunkTokens: Token[] = [];
    let chunkCut = false;
    const textOffLoop = !accountant.stops.active;
    return plain.completion.generateCompletionWithMeta(plain.input, {
        ...common,
        customStopTriggers: plain.stopTriggers,
        // The engine refuses a prompt that fills the context, and maxTokens ends the answer at its edge: nothing
        // is ever shifted out. (Its default would keep a tenth of the context free by cutting the prompt's start.)
        contextShiftSize: 1,
        disableContextShift: true,
        // Each release of tokens calls onToken, then onTextChunk with their text.
        onToken: (released) => {
            const tokens = accountant.budget.take(released);
            chunkCut = tokens.length < released.length;
            accountant.countTokens(tokens);
            if (textOffLoop)
                accountant.events.run(() => accountant.answerChunk(tokens,
                    detokenizeAfter(sequence.model, tokens, accountant.answerTokens)));
            else
                chunkTokens = tokens;
        },
        onTextChunk: textOffLoop ? undefined
            : (text) => accountant.answerChunk(chunkTokens, chunkCut ? accountant.keptText(sequence.model, chunkTokens) : text)
    });
}

/** How a chat turn is constrained: a grammar (structured output), or functions (exclusive in node-llama-cpp), or neither. */
export type ChatConstraints = {
    grammar?: LlamaGrammar,
    functions?: ChatModelFunctions,
    maxParallelFunctionCalls?: number,
    callStream: CallArgumentsStream,
    /** Without a budget a thought may never close (the tiny reasoning model cannot write `</think>`). */
    thoughtBudget?: number,
    /**
     * The chat's wrapper generates freely and the model's calls are read from its text in this format
     * (textCallWrapper.ts): `functions` render the tools but LlamaChat never engages its own calls.
     */
    textCalls?: {format: TextCallFormat, model: LlamaModel},
    /** The rendered prompt's length: what the sequence holds after it is what was generated (unplacedTokens.ts). */
    promptTokens: number
};

/** Tools, JSON output and thoughts with `LlamaChat`: its function calls, grammars and thought segments. */
export async function generateChat(chat: LlamaChat, history: ChatHistoryItem[], common: CommonGenerationOptions,
    accountant: AnswerAccountant, constraints: ChatConstraints
): Promise<StrategyResponse> {
    const {grammar, functions, maxParallelFunctionCalls, callStream, thoughtBudget, textCalls} = constraints;
    const readers = textCalls == null || grammar != null || functions == null || Object.keys(functions).length === 0
        ? undefined
        : new AnswerAndThoughtReaders(textCalls.format, new Map(Object.entries(functions)), maxParallelFunctionCalls, textCalls.model,
            callStream);
    const response = await chat.generateResponse(history, {
        ...common,
        budgets: thoughtBudget == null ? undefined : {thoughtTokens: thoughtBudget},
        ...(grammar != null
            ? {grammar}
            : functions != null
            ? {
                functions,
                documentFunctionParams: true,
                maxParallelFunctionCalls,
                onFunctionCallParamsChunk: (chunk) => callStream.push(chunk.callIndex, chunk.functionName, chunk.paramsChunk, chunk.done)
            }
            : {}),
        onResponseChunk: (chunk) => {
            accountant.countTokens(chunk.tokens);
            const thought = chunk.type === "segment" && chunk.segmentType === "thought";
            if (readers != null && (thought || chunk.type == null))
                readers.push(chunk, thought, chunk.type === "segment" && chunk.segmentEndTime != null, accountant);
            else if (thought)
                accountant.thoughtChunk(chunk.tokens, chunk.text, chunk.segmentEndTime != null);
            else if (chunk.type == null)
                accountant.answerChunk(chunk.tokens, chunk.text);
        }
    });
    const unplaced = grammar == null && (response.functionCalls?.length ?? 0) === 0
        && (response.metadata.stopReason === "eogToken" || response.metadata.stopReason === "maxTokens")
        ? unplacedTokens(chat.sequence, constraints.promptTokens, chat, accountant.lastReleased)
        : undefined;
    if (readers == null) {
        if (unplaced == null || unplaced.text === "")
            return response;
        accountant.answerChunk(unplaced.tokens, unplaced.text);
        return {...response, response: response.response + unplaced.text};
    }
    if (unplaced != null && unplaced.text !== "")
        readers.push(unplaced, false, false, accountant);
    const calls = readers.finish(accountant, response.metadata.stopReason === "maxTokens");
    return {
        response: accountant.answer,
        functionCalls: calls.map((call) => ({functionName: call.name, params: call.arguments, index: call.index})),
        metadata: response.metadata
    };
}
