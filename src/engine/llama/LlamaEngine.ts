import path from "node:path";
import type {ChatWrapper, ChatWrapperGeneratedContextState, Llama, LlamaChat, LlamaCompletion, LlamaContext, LlamaContextSequence, LlamaModel, Tokenizer} from "node-llama-cpp";
import {AfterDispatch} from "./AfterDispatch.js";
import {toChatHistory, toChatModelFunctions} from "./chatHistory.js";
import {ChatWrapperVariants, type PromptShape} from "./ChatWrapperVariants.js";
import {JsonGrammars} from "./grammars.js";
import {Emitter} from "../../protocol/Emitter.js";
import {BatchThreads} from "./BatchThreads.js";
import {BusyPoll} from "./BusyPoll.js";
import {defaultBatchSize, defaultPromptThreads, defaultQueueLimit, defaultThreads, planContext} from "../engineDefaults.js";
import {EngineError} from "../errors.js";
import {generateOnLease} from "../generateOnLease.js";
import {GenerationActivity} from "../GenerationActivity.js";
import {runGeneration} from "./runGeneration.js";
import {loadLlama, loadNodeLlamaCpp, modelGpuLayers, type NodeLlamaCpp} from "../models/loadBinding.js";
import {maxTokenCharacters, minimumPromptTokens} from "./promptBounds.js";
import {planPlainCompletion} from "./plainCompletion.js";
import {modelFingerprint, PromptStateCache} from "./PromptStateCache.js";
import {PromptTokenizer} from "./PromptTokenizer.js";
import {createSegmentTokenizer, type SegmentTokenizer} from "./SegmentTokenizer.js";
import {TokenizerWorker} from "./TokenizerWorker.js";
import {SequencePool, type SequenceLease} from "./SequencePool.js";
import {defaultKeyCacheType, type KeyCacheType} from "../keyCacheType.js";
import {nativeKeyCacheType, usableKeyCacheType} from "./nativeKeyCacheType.js";
import type {
    ChatEngine, ChatTurn, EngineLease, EngineState, EngineStats, GenerationRequest, GenerationResult, GenerationSummary, GpuChoice,
    LoadProgress, ModelInfo, ToolSpec
} from "../types.js";

export type LlamaEngineOptions = {
    /** CPU threads for generation batches. Defaults to `defaultThreads()`: cores − 1 (at least 1). */
    threads?: number,
    /** CPU threads for prompt-evaluation batches (see BatchThreads). Defaults to `defaultPromptThreads()`: every core. */
    promptThreads?: number,
    /** Context size per sequence, in tokens. Defaults to `planContext`'s: the model's trained context, at most 32768. */
    contextSize?: number,
    /** Parallel sequences (concurrent generations batched together). Defaults to `planContext`'s: 1 to 4, as the context allows. */
    parallel?: number,
    /** Requests that may wait for a sequence before new ones get 503. Defaults to `defaultQueueLimit` (64). */
    queueLimit?: number,
    /** Defaults to `false` (CPU); `"auto"` picks an available GPU backend. */
    gpu?: GpuChoice,
    /** Flash attention; off by default: on CPU it makes a long cold prompt cheaper and every generated token dearer (docs/api.md). */
    flashAttention?: boolean,
    /** The KV cache's key type (see KeyCacheType). Defaults to `defaultKeyCacheType` (f16); q8_0 where the model allows it. */
    cacheTypeK?: KeyCacheType,
    /**
     * Tokens per native evaluation, and so the largest prompt step. Defaults to `defaultBatchSize(onGpu)`: 128 on the
     * CPU, 512 on a GPU.
     */
    batchSize?: number,
    /**
     * While a generation's tokens come less than this many ms apart, the event loop polls instead of sleeping (see
     * BusyPoll): faster streams of fast models, at the price of a core while they last. Defaults to
     * `defaultBusyPollBelowTokenMs` (2); 0 never polls.
     */
    busyPollBelowTokenMs?: number,
    /** The model name reported to clients. Defaults to the file name without `.gguf`. */
    alias?: string,
    /**
     * Text that ends a plain-text answer like an end-of-turn token (reported as a normal stop, not a length cut).
     * For models that do not end their turns on their own. Defaults to none.
     */
    stopSequences?: readonly string[],
    /**
     * Keep evaluated prompts on disk across restarts (see PromptStateCache): a prompt sharing a long prefix with a saved
     * one loads that state instead of evaluating it again. Absent: no prompt cache on disk.
     */
    promptCache?: {folder: string, maxBytes?: number, minTokens?: number, ttlSeconds?: number, log?: (line: string) => void}
};

/** A prompt rendered by a chat wrapper: the wrapper's context state, and its tokens. */
type RenderedPrompt = {state: ChatWrapperGeneratedContextState, tokens: number[]};

type Loaded = {
    model: LlamaModel,
    context: LlamaContext,
    chatWrapper: ChatWrapper,
    /** Thinking-off and forced-call renderings of `chatWrapper`. */
    variants: ChatWrapperVariants,
    /** LlamaChat objects for the variants (the base wrapper's are in `chats`); disposed with the context. */
    variantChats: Map<ChatWrapper, Map<LlamaContextSequence, LlamaChat>>,
    grammars: JsonGrammars,
    pool: SequencePool<LlamaContextSequence>,
    chats: Map<LlamaContextSequence, LlamaChat>,
    /** The LlamaCompletion of each sequence, for plain-text turns (see plainCompletion.ts); disposed with the context. */
    completions: Map<LlamaContextSequence, LlamaCompletion>,
    info: ModelInfo,
    /** Running generations, so unloading can abort them and wait until they let go of the context. */
    active: Map<AbortController, Promise<unknown>>,
    /** The context's batch dispatch hook: generation events are delivered right after each dispatch. */
    afterDispatch: AfterDispatch,
    /** The model's tokenizer (installed as `model.tokenizer`), remembering earlier prompts' segments and answers. */
    segments: SegmentTokenizer,
    /** Tokenizes rendered prompts with `segments`, long segments off the event loop. */
    promptTokenizer: PromptTokenizer,
    /** Tokenizes long prompt segments off the event loop; stopped with the model. */
    tokenizerWorker: TokenizerWorker,
    /** The most characters one token stands for (see promptBounds.ts). */
    maxTokenChars: number,
    /** Evaluated prompts saved on disk for this model and context (with `promptCache`). */
    promptStates: PromptStateCache | null,
    /** States being saved: the context must outlive them. */
    saving: Set<Promise<unknown>>
};

/**
 * The one owner of node-llama-cpp: model lifecycle, the sequence pool and generation.
 * Every other layer talks to it through `ChatEngine`.
 */
export class LlamaEngine implements ChatEngine {
    public readonly kind = "local";
    private llama: Llama | undefined;
    private loaded: Loaded | undefined;
    private currentState: EngineState = "unloaded";
    private loading: Promise<ModelInfo> | undefined;
    private readonly stateChanges = new Emitter<EngineState>();
    /** Live count of running generations and sampled tokens (the VS Code status bar shows tokens/s from it). */
    public readonly activity = new GenerationActivity();
    private readonly generations = new Emitter<GenerationSummary>();

    private readonly busyPoll: BusyPoll;

    public constructor(private readonly options: LlamaEngineOptions = {}) {
        this.busyPoll = new BusyPoll(options.busyPollBelowTokenMs);
    }

    public get state(): EngineState {
        return this.currentState;
    }

    public get model(): ModelInfo | null {
        return this.loaded?.info ?? null;
    }

    public onStateChange(listener: (state: EngineState) => void): () => void {
        return this.stateChanges.on(listener);
    }

    /** Called after each generation (for metrics and the status bar): usage, stop reason and timings. */
    public onGeneration(listener: (summary: GenerationSummary) => void): () => void {
        return this.generations.on(listener);
    }

    private notifyGeneration(summary: GenerationSummary): void {
        this.generations.emit(summary);
    }

    /** Loads a GGUF file, replacing the model already loaded (if any) once the new one is ready. */
    public async load(modelPath: string, onProgress?: (progress: LoadProgress) => void): Promise<ModelInfo> {
        if (this.loading != null)
            await this.loading.catch(() => undefined);
        this.loading = this.doLoad(modelPath, onProgress);
        try {
            return await this.loading;
        } finally {
            this.loading = undefined;
        }
    }

    public async reload(onProgress?: (progress: LoadProgress) => void): Promise<ModelInfo> {
        const current = this.loaded?.info.path;
        if (current == null)
            throw new EngineError("not_ready", "No model is loaded.");
        return this.load(current, onProgress);
    }

    /** Aborts running generations, fails waiting ones and frees the model. */
    public async unload(): Promise<void> {
        const loaded = this.loaded;
        this.loaded = undefined;
        if (loaded == null) {
            this.setState("unloaded");
            return;
        }
        await disposeLoaded(loaded);
        this.setState("unloaded");
    }

    public async dispose(): Promise<void> {
        await this.unload();
        await this.llama?.dispose();
        this.llama = undefined;
    }

    public stats(): EngineStats {
        const pool = this.loaded?.pool;
        return {
            sequencesBusy: pool?.busyCount ?? 0,
            sequencesTotal: pool?.size ?? 0,
            queueDepth: pool?.queueDepth ?? 0,
            queueLimit: pool?.limit ?? this.options.queueLimit ?? defaultQueueLimit
        };
    }

    public async countPromptTokens(turns: ChatTurn[], tools: ToolSpec[] = []): Promise<number> {
        return (await this.renderPrompt(this.requireLoaded(), turns, tools)).tokens.length;
    }

    public generate(request: GenerationRequest): Promise<GenerationResult> {
        return generateOnLease(this, request);
    }

    /**
     * Renders the prompt, checks that it fits, and waits for the sequence holding its longest prefix.
     * Split from generation so that a full queue (503) or an oversized prompt (400) is known before a stream opens.
     */
    public async acquire(turns: ChatTurn[], tools: ToolSpec[], signal?: AbortSignal, shape: PromptShape = {}): Promise<EngineLease> {
        const loaded = this.requireLoaded();
        const acquiredWrapper = loaded.variants.for(shape);
        const rendered = await this.renderPrompt(loaded, turns, tools, acquiredWrapper);
        const prompt = rendered.tokens;
        if (prompt.length >= loaded.info.contextSize)
            throw promptTooLong(`The input is ${prompt.length} tokens`, loaded.info);

        const partition = shape.cachePartition ?? "";
        const lease = await loaded.pool.acquire(prompt, {partition, signal, onQueued: shape.onQueued});
        const restored = await this.prepareSequence(loaded, lease, prompt, partition).catch((error: unknown) => {
            lease.release();
            throw error;
        });
        let used = false;
        /** A state being saved holds the sequence (it must not change meanwhile); the lease ends after it. */
        let saving: Promise<unknown> | undefined;
        return {
            promptTokens: prompt.length,
            cachedPrefixTokens: Math.max(lease.sharedPrefixLength, restored),
            release: () => {
                if (saving == null)
                    lease.release();
                else
                    void saving.finally(() => lease.release());
            },
            generate: async (request) => {
                if (used)
                    throw new Error("An engine lease runs one generation.");
                used = true;
                // Unloading aborts what runs on the model it frees.
                const controller = new AbortController();
                const onAbort = () => controller.abort(request.signal?.reason);
                if (request.signal?.aborted)
                    onAbort();
                request.signal?.addEventListener("abort", onAbort, {once: true});
                this.activity.begin();
                const wrapper = loaded.variants.for(request);
                // The prompt was measured with the shape given at acquire; a different shape renders differently.
                const generationPrompt = wrapper === acquiredWrapper ? rendered : await this.renderPrompt(loaded, request.turns, request.tools ?? [], wrapper);
                const plain = request.json == null
                    ? planPlainCompletion(generationPrompt.tokens, generationPrompt.state, wrapper, loaded.model, (request.tools ?? []).length > 0)
                    : undefined;
                const running = Promise.all([
                    this.chatFor(loaded, lease.sequence, wrapper),
                    plain == null ? undefined : this.completionFor(loaded, lease.sequence).then((completion) => ({...plain, completion})),
                    request.json == null ? undefined : loaded.grammars.get(request.json)
                ]).then(([chat, plainCompletion, grammar]) => runGeneration({
                    chat,
                    plain: plainCompletion,
                    grammar,
                    thinks: loaded.variants.thinks,
                    sequence: lease.sequence,
                    history: toChatHistory(request.turns),
                    prompt: generationPrompt.tokens,
                    promptStepTokens: loaded.context.batchSize,
                    contextSize: loaded.info.contextSize,
                    request: {...request, signal: controller.signal},
                    onTokens: (count) => this.activity.tokens(count),
                    stopSequences: this.options.stopSequences,
                    afterDispatch: loaded.afterDispatch,
                    busyPoll: this.busyPoll,
                    // The next turn renders this answer again: its tokens must be the ones the sequence holds.
                    onAnswer: (text, tokens) => loaded.segments.rememberAnswer(text, tokens)
                }));
                loaded.active.set(controller, running.catch(() => undefined));
                const started = performance.now();
                try {
                    const result = await running;
                    // The next turn of this conversation waits for this sequence rather than start cold on another.
                    lease.settle();
                    if (shape.keepPromptOnDisk === true)
                        saving = this.savePromptState(loaded, lease.sequence, restored, partition);
                    this.notifyGeneration({...result, durationMs: performance.now() - started});
                    return result;
                } finally {
                    request.signal?.removeEventListener("abort", onAbort);
                    loaded.active.delete(controller);
                    this.activity.end();
                }
            }
        };
    }

    /**
     * The prompt through the model's chat wrapper: its context state and tokens. An input whose text alone cannot fit
     * the context is refused before anything is rendered or tokenized; long segments are tokenized off the event loop
     * (PromptTokenizer).
     */
    private async renderPrompt(loaded: Loaded, turns: ChatTurn[], tools: readonly ToolSpec[], wrapper: ChatWrapper = loaded.chatWrapper): Promise<RenderedPrompt> {
        const contextSize = loaded.info.contextSize;
        const minimum = minimumPromptTokens(turns, loaded.maxTokenChars, tools);
        if (minimum >= contextSize)
            throw promptTooLong(`The input is at least ${minimum} tokens`, loaded.info);
        const state = wrapper.generateContextState({
            chatHistory: toChatHistory(turns),
            availableFunctions: toChatModelFunctions(tools),
            documentFunctionParams: true
        });
        return {state, tokens: await loaded.promptTokenizer.tokenize(state.contextText) as number[]};
    }

    /**
     * Readies a leased sequence for the prompt: a sequence another partition used last is cleared first (node-llama-cpp
     * would otherwise reuse the prefix it shares with that partition's prompt, and the time saved would tell), then the
     * partition's saved state sharing the longest prefix is loaded when it is longer than what the sequence holds; what
     * follows the shared part is erased by the prefill. Returns the tokens restored (0: none).
     */
    private async prepareSequence(loaded: Loaded, lease: SequenceLease<LlamaContextSequence>, prompt: readonly number[], partition: string): Promise<number> {
        const {sequence} = lease;
        if (lease.foreign && sequence.contextTokens.length > 0)
            await sequence.clearHistory();
        const hit = loaded.promptStates?.find(prompt.slice(0, -1), partition);
        if (hit == null || hit.tokenCount <= lease.sharedPrefixLength)
            return 0;
        const ok = await loaded.promptStates!.restore(hit, partition, (file) => sequence.loadStateFromFile(file, {acceptRisk: true}));
        return ok ? hit.tokenCount : 0;
    }

    /**
     * Saves the sequence's state (the prompt and its answer) when its prompt was long and no saved state covers most
     * of it already, so that the next start finds it. The generation's result is already out; the sequence is held
     * only until the state is in its file (the returned promise), the checksum and manifest follow without it.
     */
    private savePromptState(loaded: Loaded, sequence: LlamaContextSequence, restored: number, partition: string): Promise<unknown> | undefined {
        const cache = loaded.promptStates;
        const tokens = sequence.contextTokens as number[];
        if (cache == null || tokens.length < cache.minTokens || restored >= tokens.length / 2 || cache.covers(tokens, partition))
            return undefined;
        const {written, done} = cache.save(tokens, partition, (file) => sequence.saveStateToFile(file));
        for (const step of [written, done]) {
            loaded.saving.add(step);
            void step.finally(() => loaded.saving.delete(step));
        }
        return written;
    }

    /** Deletes the prompt states saved on disk for one partition (its owner deleted stored data), or all of them. */
    public async forgetPromptStates(partition?: string): Promise<number> {
        const cache = this.loaded?.promptStates;
        return cache == null ? 0 : cache.forget(partition);
    }

    private async chatFor(loaded: Loaded, sequence: LlamaContextSequence, wrapper: ChatWrapper = loaded.chatWrapper): Promise<LlamaChat> {
        let chats = loaded.chats;
        if (wrapper !== loaded.chatWrapper) {
            chats = loaded.variantChats.get(wrapper) ?? new Map();
            loaded.variantChats.set(wrapper, chats);
        }
        let chat = chats.get(sequence);
        if (chat == null) {
            const {LlamaChat} = await loadNodeLlamaCpp();
            chat = new LlamaChat({contextSequence: sequence, chatWrapper: wrapper});
            chats.set(sequence, chat);
        }
        return chat;
    }

    private async completionFor(loaded: Loaded, sequence: LlamaContextSequence): Promise<LlamaCompletion> {
        let completion = loaded.completions.get(sequence);
        if (completion == null) {
            const {LlamaCompletion} = await loadNodeLlamaCpp();
            completion = new LlamaCompletion({contextSequence: sequence});
            loaded.completions.set(sequence, completion);
        }
        return completion;
    }

    private requireLoaded(): Loaded {
        if (this.loaded == null)
            throw new EngineError("not_ready", this.currentState === "loading" ? "The model is still loading." : "No model is loaded.");
        return this.loaded;
    }

    private async doLoad(modelPath: string, onProgress?: (progress: LoadProgress) => void): Promise<ModelInfo> {
        const previousState = this.currentState;
        this.setState("loading");
        try {
            onProgress?.({phase: "binding", progress: 0});
            const binding = await loadNodeLlamaCpp();
            this.llama ??= await loadLlama(binding, this.options.gpu ?? false, {
                logLevel: binding.LlamaLogLevel.error,
                maxThreads: Math.max(this.threads, this.promptThreads)
            });
            onProgress?.({phase: "model", progress: 0});
            const model = await this.llama.loadModel({
                modelPath: path.resolve(modelPath),
                gpuLayers: modelGpuLayers(this.options.gpu ?? false),
                onLoadProgress: (progress) => onProgress?.({phase: "model", progress})
            });
            try {
                onProgress?.({phase: "context", progress: 0});
                const trainContextSize = model.trainContextSize;
                const {contextSize, parallel} = planContext(trainContextSize, {contextSize: this.options.contextSize ?? null, parallel: this.options.parallel ?? null});
                const afterDispatch = new AfterDispatch();
                const tokenizerWorker = new TokenizerWorker({modelPath: path.resolve(modelPath), gpu: this.options.gpu ?? false});
                const segments = createSegmentTokenizer(model.tokenizer);
                // LlamaChat renders and tokenizes the whole history again on every call, through \`model.tokenizer\`, on
                // the event loop. Through the segment cache (which returns exactly the model's tokens) it finds every
                // segment the engine tokenized to choose the sequence, long ones included, instead of tokenizing it twice.
                Object.defineProperty(model, "tokenizer", {value: segments, configurable: true});
                const keyCache = usableKeyCacheType(this.options.cacheTypeK ?? defaultKeyCacheType, model);
                const context = await model.createContext({
                    contextSize,
                    sequences: parallel,
                    threads: this.threads,
                    batchSize: this.options.batchSize ?? Math.min(defaultBatchSize(this.llama.gpu !== false), contextSize * parallel),
                    flashAttention: this.options.flashAttention ?? false,
                    experimentalKvCacheKeyType: nativeKeyCacheType(keyCache.type),
                    batching: {dispatchSchedule: afterDispatch.dispatchSchedule}
                });
                BatchThreads.install(context, {promptThreads: this.promptThreads, generationThreads: this.threads});
                const chatWrapper = binding.resolveChatWrapper(model);
                const sequences = Array.from({length: parallel}, () => context.getSequence());
                const loaded: Loaded = {
                    model,
                    context,
                    chatWrapper,
                    variants: new ChatWrapperVariants(chatWrapper, binding, model),
                    variantChats: new Map(),
                    grammars: new JsonGrammars(this.llama),
                    pool: new SequencePool(sequences, (sequence) => sequence.contextTokens as number[], {queueLimit: this.options.queueLimit}),
                    chats: new Map(),
                    completions: new Map(),
                    active: new Map(),
                    afterDispatch,
                    segments,
                    promptTokenizer: new PromptTokenizer(segments, tokenizerWorker),
                    tokenizerWorker,
                    maxTokenChars: maxTokenCharacters(model),
                    promptStates: await this.openPromptStates(binding, modelPath, context, keyCache.type),
                    saving: new Set(),
                    info: {
                        id: this.options.alias ?? path.basename(modelPath).replace(/\.gguf$/i, ""),
                        path: path.resolve(modelPath),
                        contextSize: context.contextSize,
                        sequences: parallel,
                        trainContextSize,
                        chatWrapper: chatWrapper.wrapperName,
                        keyCache,
                        batchSize: context.batchSize
                    }
                };
                const previous = this.loaded;
                this.loaded = loaded;
                if (previous != null)
                    await disposeLoaded(previous);
                onProgress?.({phase: "context", progress: 1});
                this.setState("ready");
                return loaded.info;
            } catch (error) {
                await model.dispose();
                throw error;
            }
        } catch (error) {
            this.setState(this.loaded != null ? "ready" : previousState === "ready" ? "unloaded" : "failed");
            throw new EngineError("load_failed", `Could not load model '${modelPath}': ${error instanceof Error ? error.message : String(error)}`);
        }
    }

    /** The prompt-state cache for this model file and these context settings (a state is only loaded into both). */
    private async openPromptStates(binding: NodeLlamaCpp, modelPath: string, context: LlamaContext, keyCacheType: KeyCacheType): Promise<PromptStateCache | null> {
        const options = this.options.promptCache;
        if (options == null)
            return null;
        const settings = {
            contextSize: context.contextSize, sequences: context.totalSequences, batchSize: context.batchSize,
            flashAttention: context.flashAttention, nodeLlamaCpp: await binding.getModuleVersion(),
            // Named only when not llama.cpp's default, so that the states saved before keys had a choice stay usable.
            ...keyCacheType !== "f16" && {keyCacheType}
        };
        return PromptStateCache.open({
            folder: options.folder, maxBytes: options.maxBytes, minTokens: options.minTokens, ttlSeconds: options.ttlSeconds, log: options.log,
            identity: {model: await modelFingerprint(path.resolve(modelPath)), context: JSON.stringify(settings)}
        });
    }

    private get threads(): number {
        return this.options.threads ?? defaultThreads();
    }

    private get promptThreads(): number {
        return this.options.promptThreads ?? defaultPromptThreads();
    }

    private setState(state: EngineState): void {
        if (state === this.currentState)
            return;
        this.currentState = state;
        this.stateChanges.emit(state);
    }
}

async function disposeLoaded(loaded: Loaded): Promise<void> {
    loaded.pool.close(new EngineError("not_ready", "The model was unloaded."));
    await loaded.tokenizerWorker.dispose();
    for (const controller of loaded.active.keys())
        controller.abort(new EngineError("aborted", "The model was unloaded."));
    // Aborted generations stop within a few tokens; the context must outlive them.
    await Promise.all([...loaded.active.values(), ...loaded.saving]);
    for (const chat of loaded.chats.values())
        chat.dispose({disposeSequence: false});
    for (const completion of loaded.completions.values())
        completion.dispose({disposeSequence: false});
    await loaded.context.dispose();
    await loaded.model.dispose();
}

/**
 * The refusal of a prompt the context cannot hold. The client is usually its operator's own agent (Codex shows the
 * message), so it says what to change when the model could take more than the context it was given.
 */
function promptTooLong(input: string, info: ModelInfo): EngineError {
    const hint = info.contextSize < info.trainContextSize
        ? ` The model was trained on ${info.trainContextSize} tokens: give the server a larger --context-size (localResponses.contextSize in VS Code), and a smaller --parallel to keep its memory the same.`
        : "";
    return new EngineError("context_overflow", `${input}, which leaves no room for output in the context of ${info.contextSize} tokens.${hint}`);
}
