import type {
    ChatWrapper, ChatWrapperGeneratedContextState, LlamaChat, LlamaCompletion, LlamaContext, LlamaContextSequence, LlamaModel
} from "node-llama-cpp";
import type {AfterDispatch} from "./AfterDispatch.js";
import {toChatHistory, toChatModelFunctions} from "../prompt/chatHistory.js";
import type {ChatWrapperVariants} from "../prompt/ChatWrapperVariants.js";
import type {JsonGrammars} from "../prompt/grammars.js";
import {EngineError} from "../../EngineError.js";
import {loadNodeLlamaCpp} from "../../models/loadBinding.js";
import {maxTokenCharacters, minimumPromptTokens} from "../prompt/promptBounds.js";
import type {PromptStateCache} from "./PromptStateCache.js";
import type {PromptTokenizer} from "../prompt/PromptTokenizer.js";
import type {SegmentTokenizer} from "../prompt/SegmentTokenizer.js";
import {commonPrefixLength, type SequenceLease, type SequencePool} from "./SequencePool.js";
import {copySequenceState, minCopiedTokens} from "./sequenceCopy.js";
import type {SpeculativeDecoding} from "./SpeculativeDecoding.js";
import type {TokenizerWorker} from "../prompt/TokenizerWorker.js";
import type {ChatTurn, ModelInfo, PrefixSource, ToolSpec} from "../../types.js";

/** A prompt rendered by a chat wrapper: the wrapper's context state, and its tokens. */
export type RenderedPrompt = {state: ChatWrapperGeneratedContextState, tokens: number[]};

/** The prompt tokens a leased sequence holds once prepared, and where they came from (null: none). */
export type PreparedPrefix = {tokens: number, source: PrefixSource | null};

/** What loading a model made: the model, its context and sequences, and the helpers built on them. */
export type LoadedModelParts = {
    model: LlamaModel,
    context: LlamaContext,
    chatWrapper: ChatWrapper,
    /** Thinking-off and forced-call renderings of `chatWrapper`. */
    variants: ChatWrapperVariants,
    grammars: JsonGrammars,
    pool: SequencePool<LlamaContextSequence>,
    info: ModelInfo,
    /** The context's batch dispatch hook: generation events are delivered right after each dispatch. */
    afterDispatch: AfterDispatch,
    /** Each sequence's token predictor and the draft model behind them, if any. */
    speculative: SpeculativeDecoding,
    /** The model's tokenizer (installed as `model.tokenizer`), remembering earlier prompts' segments and answers. */
    segments: SegmentTokenizer,
    /** Tokenizes rendered prompts with `segments`, long segments off the event loop. */
    promptTokenizer: PromptTokenizer,
    /** Tokenizes long prompt segments off the event loop; stopped with the model. */
    tokenizerWorker: TokenizerWorker,
    /** Evaluated prompts saved on disk for this model and context (with `promptCache`). */
    promptStates: PromptStateCache | null
};

/**
 * One loaded model and what lives as long as it: rendering prompts, the chat and completion objects of its sequences,
 * prompt states restored from and saved to disk, and disposal (which aborts what still runs on it).
 */
export class LoadedModel {
    public readonly model: LlamaModel;
    public readonly context: LlamaContext;
    public readonly chatWrapper: ChatWrapper;
    public readonly variants: ChatWrapperVariants;
    public readonly grammars: JsonGrammars;
    public readonly pool: SequencePool<LlamaContextSequence>;
    public readonly info: ModelInfo;
    public readonly afterDispatch: AfterDispatch;
    public readonly speculative: SpeculativeDecoding;
    public readonly segments: SegmentTokenizer;
    /** Running generations, so unloading can abort them and wait until they let go of the context. */
    public readonly active = new Map<AbortController, Promise<unknown>>();
    private readonly promptTokenizer: PromptTokenizer;
    private readonly tokenizerWorker: TokenizerWorker;
    private readonly promptStates: PromptStateCache | null;
    /** The most characters one token stands for (see promptBounds.ts). */
    private readonly maxTokenChars: number;
    /** LlamaChat objects of the base wrapper, per sequence; disposed with the context. */
    private readonly chats = new Map<LlamaContextSequence, LlamaChat>();
    /** LlamaChat objects for the variants (the base wrapper's are in `chats`); disposed with the context. */
    private readonly variantChats = new Map<ChatWrapper, Map<LlamaContextSequence, LlamaChat>>();
    /** The LlamaCompletion of each sequence, for plain-text turns (see plainCompletion.ts); disposed with the context. */
    private readonly completions = new Map<LlamaContextSequence, LlamaCompletion>();
    /** States being saved: the context must outlive them. */
    private readonly saving = new Set<Promise<unknown>>();

    public constructor(parts: LoadedModelParts) {
        this.model = parts.model;
        this.context = parts.context;
        this.chatWrapper = parts.chatWrapper;
        this.variants = parts.variants;
        this.grammars = parts.grammars;
        this.pool = parts.pool;
        this.info = parts.info;
        this.afterDispatch = parts.afterDispatch;
        this.speculative = parts.speculative;
        this.segments = parts.segments;
        this.promptTokenizer = parts.promptTokenizer;
        this.tokenizerWorker = parts.tokenizerWorker;
        this.promptStates = parts.promptStates;
        this.maxTokenChars = maxTokenCharacters(parts.model);
    }

    /**
     * The prompt through the model's chat wrapper: its context state and tokens. An input whose text alone cannot fit
     * the context is refused before anything is rendered or tokenized; long segments are tokenized off the event loop
     * (PromptTokenizer).
     */
    public async renderPrompt(turns: ChatTurn[], tools: readonly ToolSpec[],
        wrapper: ChatWrapper = this.chatWrapper): Promise<RenderedPrompt> {
        const contextSize = this.info.contextSize;
        const minimum = minimumPromptTokens(turns, this.maxTokenChars, tools);
        if (minimum >= contextSize)
            throw promptTooLong({promptTokens: minimum, atLeast: true}, this.info);
        const state = wrapper.generateContextState({
            chatHistory: toChatHistory(turns),
            availableFunctions: toChatModelFunctions(tools),
            documentFunctionParams: true
        });
        return {state, tokens: await this.promptTokenizer.tokenize(state.contextText) as number[]};
    }

    /**
     * Readies a leased sequence for the prompt: a sequence another partition used last is cleared first (node-llama-cpp
     * would otherwise reuse the prefix it shares with that partition's prompt, and the time saved would tell), then the
     * longest prefix of the prompt is brought in from where it is: the sequence itself, another free sequence of the
     * partition (`lease.donor`, its state copied), or the partition's saved state on disk. What follows the shared part
     * is erased by the prefill. Returns the prompt tokens the sequence then holds, and where they came from.
     */
    public async prepareSequence(lease: SequenceLease<LlamaContextSequence>, prompt: readonly number[],
        partition: string): Promise<PreparedPrefix> {
        const {sequence, donor} = lease;
        if (lease.foreign && sequence.contextTokens.length > 0)
            await sequence.clearHistory();
        let here = lease.sharedPrefixLength;
        const hit = this.promptStates?.find(prompt.slice(0, -1), partition);
        const onDisk = hit?.tokenCount ?? 0;
        if (donor != null && donor.sharedPrefixLength >= here + minCopiedTokens && donor.sharedPrefixLength >= onDisk) {
            if (await copySequenceState(donor.sequence, sequence))
                return {tokens: commonPrefixLength(sequence.contextTokens, prompt), source: "other_sequence"};
            // A failed copy leaves the sequence empty.
            here = 0;
        }
        if (hit != null && onDisk > here
            && await this.promptStates!.restore(hit, partition, (file) => sequence.loadStateFromFile(file, {acceptRisk: true})))
            return {tokens: hit.tokenCount, source: "disk"};
        return {tokens: here, source: here > 0 ? "same_sequence" : null};
    }

    /**
     * Saves the sequence's state (the prompt and its answer) when its prompt was long and no saved state covers most
     * of it already, so that the next start finds it. The generation's result is already out; the sequence is held
     * only until the state is in its file (the returned promise), the checksum and manifest follow without it.
     */
    public savePromptState(sequence: LlamaContextSequence, restored: number, partition: string): Promise<unknown> | undefined {
        const cache = this.promptStates;
        const tokens = sequence.contextTokens as number[];
        if (cache == null || tokens.length < cache.minTokens || restored >= tokens.length / 2 || cache.covers(tokens, partition))
            return undefined;
        const {written, done} = cache.save(tokens, partition, (file) => sequence.saveStateToFile(file));
        for (const step of [written, done]) {
            this.saving.add(step);
            void step.finally(() => this.saving.delete(step));
        }
        return written;
    }

    /** Deletes the prompt states saved on disk for one partition (its owner deleted stored data), or all of them. */
    public async forgetPromptStates(partition?: string): Promise<number> {
        return this.promptStates == null ? 0 : this.promptStates.forget(partition);
    }

    public async chatFor(sequence: LlamaContextSequence, wrapper: ChatWrapper = this.chatWrapper): Promise<LlamaChat> {
        let chats = this.chats;
        if (wrapper !== this.chatWrapper) {
            chats = this.variantChats.get(wrapper) ?? new Map<LlamaContextSequence, LlamaChat>();
            this.variantChats.set(wrapper, chats);
        }
        let chat = chats.get(sequence);
        if (chat == null) {
            const {LlamaChat} = await loadNodeLlamaCpp();
            chat = new LlamaChat({contextSequence: sequence, chatWrapper: wrapper});
            chats.set(sequence, chat);
        }
        return chat;
    }

    public async completionFor(sequence: LlamaContextSequence): Promise<LlamaCompletion> {
        let completion = this.completions.get(sequence);
        if (completion == null) {
            const {LlamaCompletion} = await loadNodeLlamaCpp();
            completion = new LlamaCompletion({contextSequence: sequence});
            this.completions.set(sequence, completion);
        }
        return completion;
    }

    /** Fails waiting requests, aborts running generations, waits for them and for states being saved, then frees all. */
    public async dispose(): Promise<void> {
        this.pool.close(new EngineError("not_ready", "The model was unloaded."));
        await this.tokenizerWorker.dispose();
        for (const controller of this.active.keys())
            controller.abort(new EngineError("aborted", "The model was unloaded."));
        // Aborted generations stop within a few tokens; the context must outlive them.
        await Promise.all([...this.active.values(), ...this.saving]);
        for (const chat of this.chats.values())
            chat.dispose({disposeSequence: false});
        for (const completion of this.completions.values())
            completion.dispose({disposeSequence: false});
        await this.context.dispose();
        await this.speculative.dispose();
        await this.model.dispose();
    }
}

/**
 * The refusal of a prompt the context cannot hold. The client is usually its operator's own agent (Codex shows the
 * message), so it says what to change when the model could take more than the context it was given.
 */
export function promptTooLong(prompt: {promptTokens: number, atLeast?: boolean}, info: ModelInfo): EngineError {
    const input = `The input is ${prompt.atLeast === true ? "at least " : ""}${prompt.promptTokens} tokens`;
    const hint = info.contextSize < info.trainContextSize
        ? ` The model was trained on ${info.trainContextSize} tokens: give the server a larger --context-size` +
            " (localResponses.contextSize in VS Code), and a smaller --parallel to keep its memory the same."
        : "";
    const message = `${input}, which leaves no room for output in the context of ${info.contextSize} tokens.${hint}`;
    return new EngineError("context_overflow", message, {overflow: {promptTokens: prompt.promptTokens, contextSize: info.contextSize}});
}
