import path from "node:path";
import type {Llama} from "node-llama-cpp";
import {AfterDispatch} from "./runtime/AfterDispatch.js";
import {ChatWrapperVariants, type PromptShape} from "./prompt/ChatWrapperVariants.js";
import type {ChatFormatChoice} from "./families/chatFormatChoice.js";
import {resolveChosenChatWrapper} from "./families/chosenChatWrapper.js";
import {JsonGrammars} from "./prompt/grammars.js";
import {Emitter} from "../../protocol/Emitter.js";
import {BatchThreads} from "./runtime/BatchThreads.js";
import {BusyPoll} from "./runtime/BusyPoll.js";
import {backendThreads, defaultGpu, defaultPromptThreads, defaultQueueLimit, defaultThreads, planContext} from "../engineDefaults.js";
import {EngineError} from "../EngineError.js";
import {generateOnLease} from "../generateOnLease.js";
import {GenerationActivity} from "../GenerationActivity.js";
import {LlamaLease, type LeaseContext} from "./LlamaLease.js";
import {LoadedModel, promptTooLong} from "./runtime/LoadedModel.js";
import {loadEngineBackend, loadNodeLlamaCpp, modelGpuLayers} from "../models/loadBinding.js";
import {PromptStateCache} from "./runtime/PromptStateCache.js";
import {openPromptStates, type PromptCacheOptions} from "./runtime/openPromptStates.js";
import {PromptTokenizer} from "./prompt/PromptTokenizer.js";
import {createSegmentTokenizer} from "./prompt/SegmentTokenizer.js";
import {TokenizerWorker} from "./prompt/TokenizerWorker.js";
import {SequencePool} from "./runtime/SequencePool.js";
import {SpeculativeDecoding, type SpeculativeSetting} from "./runtime/SpeculativeDecoding.js";
import {defaultKeyCacheType, type KeyCacheType} from "../keyCacheType.js";
import {nativeKeyCacheType, usableKeyCacheType} from "./runtime/nativeKeyCacheType.js";
import {metadataNames} from "./runtime/metadataNames.js";
import {contextSettings, describeLoadedBackend, runningBackend} from "./runtime/modelBackend.js";
import {runCompletion} from "./completion/runCompletion.js";
import {fimTokensOf} from "./completion/fimTokens.js";
import {runEmbedding} from "./completion/runEmbedding.js";
import {refuseChatOnEmbeddingModel} from "./completion/embeddingOnly.js";
import type {CompletionRequest, CompletionResult, EmbeddingRequest, EmbeddingResult, RawEngine} from "../completionTypes.js";
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
    /** Defaults to `defaultGpu` ("auto": the best GPU backend installed and usable here, else the CPU); `false`: the CPU. */
    gpu?: GpuChoice,
    /** Flash attention. Defaults to the backend's (`backendDefaults`): off on the CPU, node-llama-cpp's "auto" on a GPU. */
    flashAttention?: boolean,
    /** The KV cache's key type (see KeyCacheType). Defaults to `defaultKeyCacheType` (f16); q8_0 where the model allows it. */
    cacheTypeK?: KeyCacheType,
    /**
     * Tokens per native evaluation, and so the largest prompt step. Defaults to the backend's (`backendDefaults`): 128 on
     * the CPU, 512 on a GPU.
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
    /** The chat format a person chose over detection (`--chat-wrapper`, `--chat-template`). Defaults to detection. */
    chatFormat?: ChatFormatChoice,
    /** Text that ends a plain-text answer like an end-of-turn token (a normal stop, for models that do not stop). Defaults to none. */
    stopSequences?: readonly string[],
    /**
     * Keep evaluated prompts on disk across restarts (see PromptStateCache): a prompt sharing a long prefix with a saved
     * one loads that state instead of evaluating it again. `budgetFolder`: the folder `maxBytes` bounds as a whole (a
     * library's, above this model's `folder`). Absent: no prompt cache on disk.
     */
    promptCache?: PromptCacheOptions,
    /**
     * Speculative decoding (see SpeculativeDecoding): predicted tokens are checked by the model, so answers do not change,
     * only their speed. Defaults to off.
     */
    speculative?: SpeculativeSetting,
    /** Where its generations are counted; a library's models share one. Defaults to its own. */
    activity?: GenerationActivity,
    /** node-llama-cpp's backend loaded ahead of the model (a spare model process). Defaults to loading it on the first load. */
    binding?: Promise<Llama>
};

/**
 * The one owner of node-llama-cpp: model lifecycle, the sequence pool and generation.
 * Every other layer talks to it through `ChatEngine`.
 */
export class LlamaEngine implements ChatEngine, RawEngine {
    public readonly kind = "local";
    private llama: Llama | undefined;
    private loaded: LoadedModel | undefined;
    private currentState: EngineState = "unloaded";
    private loading: Promise<ModelInfo> | undefined;
    private readonly stateChanges = new Emitter<EngineState>();
    /** Live count of running generations and sampled tokens (the VS Code status bar shows tokens/s from it). */
    public readonly activity: GenerationActivity;
    private readonly generations = new Emitter<GenerationSummary>();

    /** What each lease generates with: this engine's activity, busy polling, stop text and generation listeners. */
    private readonly leaseContext: LeaseContext;

    public constructor(private readonly options: LlamaEngineOptions = {}) {
        this.activity = options.activity ?? new GenerationActivity();
        this.leaseContext = {
            activity: this.activity,
            busyPoll: new BusyPoll(options.busyPollBelowTokenMs),
            stopSequences: options.stopSequences,
            onGeneration: (summary) => this.generations.emit(summary)
        };
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
        await loaded.dispose();
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
            queueLimit: pool?.limit ?? this.options.queueLimit ?? defaultQueueLimit,
            ...this.loaded != null && {speculative: {
                kind: this.loaded.speculative.kind,
                draftedTokens: this.loaded.speculative.counts.drafted,
                acceptedTokens: this.loaded.speculative.counts.accepted
            }}
        };
    }

    public async countPromptTokens(turns: ChatTurn[], tools: ToolSpec[] = []): Promise<number> {
        return (await this.requireLoaded().renderPrompt(turns, tools)).tokens.length;
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
        refuseChatOnEmbeddingModel(loaded.model, loaded.info.id);
        await loaded.grammars.check(shape.json, tools);
        const wrapper = loaded.variants.for(shape);
        const rendered = await loaded.renderPrompt(turns, tools, wrapper);
        const prompt = rendered.tokens;
        if (prompt.length >= loaded.info.contextSize)
            throw promptTooLong({promptTokens: prompt.length}, loaded.info);

        const partition = shape.cachePartition ?? "";
        const lease = await loaded.pool.acquire(prompt, {partition, signal, onQueued: shape.onQueued, affinity: shape.affinityKey});
        const prefix = await loaded.prepareSequence(lease, prompt, partition).catch((error: unknown) => {
            lease.release();
            throw error;
        });
        return new LlamaLease(loaded, lease, {rendered, wrapper}, prefix, shape, this.leaseContext);
    }

    /** Raw text completion or fill-in-the-middle on a sequence of the model (see runCompletion). */
    public async complete(request: CompletionRequest): Promise<CompletionResult> {
        return runCompletion(this.requireLoaded(), request, this.leaseContext);
    }

    public async embed(request: EmbeddingRequest): Promise<EmbeddingResult> {
        return runEmbedding(this.requireLoaded(), request, this.threads);
    }

    /**
     * Deletes the prompt states saved on disk for one partition (its owner deleted stored data), or all of them; with no
     * model loaded, from the folder itself (a model unloaded keeps its states, and a deletion must still reach them).
     */
    public async forgetPromptStates(partition?: string): Promise<number> {
        if (this.loaded != null)
            return this.loaded.forgetPromptStates(partition);
        const folder = this.options.promptCache?.folder;
        return folder == null ? 0 : PromptStateCache.forgetIn(folder, partition);
    }

    private requireLoaded(): LoadedModel {
        if (this.loaded == null)
            throw new EngineError("not_ready", this.currentState === "loading" ? "The model is still loading." : "No model is loaded.");
        return this.loaded;
    }

    private async doLoad(modelPath: string, onProgress?: (progress: LoadProgress) => void): Promise<ModelInfo> {
        const previousState = this.currentState;
        this.setState("loading");
        const gpu = this.options.gpu ?? defaultGpu;
        try {
            onProgress?.({phase: "binding", progress: 0});
            const binding = await loadNodeLlamaCpp();
            this.llama ??= await (this.options.binding ?? loadEngineBackend(gpu, backendThreads(this.options)));
            onProgress?.({phase: "model", progress: 0});
            const model = await this.llama.loadModel({
                modelPath: path.resolve(modelPath),
                gpuLayers: modelGpuLayers(gpu),
                onLoadProgress: (progress) => onProgress?.({phase: "model", progress})
            });
            try {
                onProgress?.({phase: "context", progress: 0});
                const trainContextSize = model.trainContextSize;
                const {contextSize, parallel} = planContext(trainContextSize,
                    {contextSize: this.options.contextSize ?? null, parallel: this.options.parallel ?? null});
                const afterDispatch = new AfterDispatch();
                const tokenizerWorker = new TokenizerWorker({modelPath: path.resolve(modelPath), gpu: this.llama.gpu});
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
                    ...contextSettings(runningBackend(this.llama, model), this.options, contextSize * parallel),
                    experimentalKvCacheKeyType: nativeKeyCacheType(keyCache.type),
                    batching: {dispatchSchedule: afterDispatch.dispatchSchedule}
                });
                const speculative = await SpeculativeDecoding.open(this.options.speculative ?? {kind: "off"}, binding, this.llama, {
                    contextSize: context.contextSize, sequences: parallel, threads: this.threads,
                    gpuLayers: modelGpuLayers(gpu)
                });
                // A generation step with predictions holds each sequence's token and what was predicted after it: still generation.
                BatchThreads.install(context, {
                    promptThreads: this.promptThreads, generationThreads: this.threads,
                    promptBatchTokens: parallel * (1 + speculative.maxPredictedTokens) + 1
                });
                const {wrapper: chatWrapper, format: chatFormat, family} =
                    await resolveChosenChatWrapper(binding, model, this.options.chatFormat);
                const sequences = Array.from({length: parallel},
                    () => context.getSequence({tokenPredictor: speculative.predictorForNewSequence()}));
                const loaded = new LoadedModel({
                    model,
                    context,
                    chatWrapper,
                    variants: new ChatWrapperVariants(chatWrapper, binding, model, family),
                    grammars: new JsonGrammars(this.llama),
                    pool: new SequencePool(sequences, (sequence) => sequence.contextTokens as number[],
                        {queueLimit: this.options.queueLimit}),
                    afterDispatch,
                    speculative,
                    segments,
                    promptTokenizer: new PromptTokenizer(segments, tokenizerWorker),
                    tokenizerWorker,
                    promptStates: await openPromptStates(this.options.promptCache, binding, modelPath, context, keyCache.type),
                    info: {
                        id: this.options.alias ?? path.basename(modelPath).replace(/\.gguf$/i, ""),
                        path: path.resolve(modelPath),
                        contextSize: context.contextSize,
                        sequences: parallel,
                        trainContextSize,
                        chatWrapper: chatWrapper.wrapperName,
                        chatFormat,
                        fillInTheMiddle: fimTokensOf(model) != null,
                        ...metadataNames(model),
                        keyCache,
                        batchSize: context.batchSize,
                        flashAttention: context.flashAttention,
                        backend: await describeLoadedBackend(this.llama, model, context)
                    }
                });
                const previous = this.loaded;
                this.loaded = loaded;
                if (previous != null)
                    await previous.dispose();
                onProgress?.({phase: "context", progress: 1});
                this.setState("ready");
                return loaded.info;
            } catch (error) {
                await model.dispose();
                throw error;
            }
        } catch (error) {
            this.setState(this.loaded != null ? "ready" : previousState === "ready" ? "unloaded" : "failed");
            throw new EngineError("load_failed",
                `Could not load model '${modelPath}': ${error instanceof Error ? error.message : String(error)}`);
        }
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
