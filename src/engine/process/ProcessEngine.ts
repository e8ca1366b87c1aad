import {Emitter} from "../../protocol/Emitter.js";
import {backendThreads, defaultGpu, defaultQueueLimit} from "../engineDefaults.js";
import {EngineError} from "../EngineError.js";
import {generateOnLease} from "../generateOnLease.js";
import {GenerationActivity, type ActivitySnapshot} from "../GenerationActivity.js";
import type {HostedEngine} from "../HostedEngine.js";
import type {LlamaEngineOptions} from "../llama/LlamaEngine.js";
import {PromptStateCache} from "../llama/runtime/PromptStateCache.js";
import type {
    ChatTurn, EngineLease, EngineState, EngineStats, GenerationRequest, GenerationResult, GenerationSummary, LoadProgress, ModelInfo,
    PromptShape, ToolSpec, GenerationEvent
} from "../types.js";
import type {CompletionRequest, CompletionResult, EmbeddingRequest, EmbeddingResult} from "../completionTypes.js";
import {ModelProcess, type ProcessExit} from "./ModelProcess.js";
import {
    plainRaw, plainRequest, plainShape, type AcquiredLease, type ChildMessage, type ModelProcessInit,
    type WarmBinding
} from "./modelProcessProtocol.js";
import type {SpareModelProcess} from "./SpareModelProcess.js";

export type ProcessEngineOptions = Omit<LlamaEngineOptions, "binding"> & {
    /** The model's name in what it logs and in the error its requests get when its process ends (a library's model id). */
    name: string,
    /** Where the model process's own output and its end go. */
    log?: (line: string) => void,
    /** A process started ahead that a load adopts instead of starting one (a library's models share it). Defaults to none. */
    spare?: SpareModelProcess
};

/**
 * A `LlamaEngine` in a process of its own, behind the same port: a model library's model (docs/models.md, "A crash inside
 * a model"). Loading starts the process, unloading ends it (its memory, native and JavaScript, goes back to the system);
 * a crash fails that model's requests with `model_crashed` and leaves it `failed`, to load again on the next request,
 * while the server and the other models serve on. State, model, counters and activity are mirrored from the messages
 * the process sends, so every read here is synchronous, as the port's are.
 */
export class ProcessEngine implements HostedEngine {
    public readonly kind = "local";
    public readonly activity: GenerationActivity;
    private process: ModelProcess | undefined;
    private currentState: EngineState = "unloaded";
    private currentModel: ModelInfo | null = null;
    private lastStats: EngineStats | null = null;
    private mirrored: ActivitySnapshot = {active: 0, generatedTokens: 0};
    private loading: Promise<ModelInfo> | undefined;
    /** Why its last process ended when nobody asked it to; cleared by the next load. */
    public failure: string | null = null;
    private readonly stateChanges = new Emitter<EngineState>();
    private readonly generations = new Emitter<GenerationSummary>();

    public constructor(private readonly options: ProcessEngineOptions) {
        this.activity = options.activity ?? new GenerationActivity();
    }

    public get state(): EngineState {
        return this.currentState;
    }

    public get model(): ModelInfo | null {
        return this.currentModel;
    }

    /** The running model process's id (tests end it to crash the model); undefined when none runs. */
    public get pid(): number | undefined {
        return this.process?.pid;
    }

    public onStateChange(listener: (state: EngineState) => void): () => void {
        return this.stateChanges.on(listener);
    }

    public onGeneration(listener: (summary: GenerationSummary) => void): () => void {
        return this.generations.on(listener);
    }

    public async load(source: string, onProgress?: (progress: LoadProgress) => void): Promise<ModelInfo> {
        if (this.loading != null)
            await this.loading.catch(() => undefined);
        this.loading = this.doLoad(source, onProgress);
        try {
            return await this.loading;
        } finally {
            this.loading = undefined;
        }
    }

    public async unload(): Promise<void> {
        const running = this.process;
        this.process = undefined;
        await running?.dispose();
        this.settle("unloaded");
    }

    public dispose(): Promise<void> {
        return this.unload();
    }

    public stats(): EngineStats {
        return this.lastStats ?? {
            sequencesBusy: 0, sequencesTotal: 0, queueDepth: 0, queueLimit: this.options.queueLimit ?? defaultQueueLimit
        };
    }

    public async countPromptTokens(turns: ChatTurn[], tools: ToolSpec[] = []): Promise<number> {
        return this.running().call({type: "count", turns, tools});
    }

    public generate(request: GenerationRequest): Promise<GenerationResult> {
        return generateOnLease(this, request);
    }

    public async acquire(turns: ChatTurn[], tools: ToolSpec[], signal?: AbortSignal, shape: PromptShape = {}): Promise<EngineLease> {
        const running = this.running();
        const acquired: AcquiredLease = await running.call({type: "acquire", turns, tools, shape: plainShape(shape)},
            {onQueued: shape.onQueued}, signal);
        return new ProcessLease(running, acquired);
    }

    public async complete(request: CompletionRequest): Promise<CompletionResult> {
        const onEvent = (event: GenerationEvent) => event.type === "text" && request.onText?.(event.text);
        return this.running().call({type: "complete", request: plainRaw(request)}, {onEvent}, request.signal);
    }

    public async embed(request: EmbeddingRequest): Promise<EmbeddingResult> {
        return this.running().call({type: "embed", request: plainRaw(request)}, {}, request.signal);
    }

    /** With its process running, there; else from the folder itself (an unloaded model keeps its states on disk). */
    public forgetPromptStates(partition?: string): Promise<number> {
        if (this.process != null && this.currentState === "ready")
            return this.process.call({type: "forget", partition});
        const folder = this.options.promptCache?.folder;
        return folder == null ? Promise.resolve(0) : PromptStateCache.forgetIn(folder, partition);
    }

    private async doLoad(source: string, onProgress?: (progress: LoadProgress) => void): Promise<ModelInfo> {
        this.failure = null;
        const spare = this.options.spare;
        // A load that starts the process counts with the spare (`take` … `loadEnded`).
        const starts = this.process == null;
        const running = this.process ??= this.start(spare?.take());
        this.settle("loading");
        try {
            return await this.loadIn(running, source, onProgress);
        } finally {
            // The next spare, once nothing loads or generates for a moment (it must not take the cores from this model's
            // first prompt).
            if (starts)
                spare?.loadEnded();
        }
    }

    /** The load itself; a failed one ends its process. */
    private async loadIn(running: ModelProcess, source: string, onProgress?: (progress: LoadProgress) => void): Promise<ModelInfo> {
        try {
            const info = await running.call({type: "load", source}, {onProgress});
            this.currentModel = info;
            this.settle("ready");
            return info;
        } catch (error) {
            // A model process without its model only holds memory: it ends, and the next load starts another.
            if (this.process === running && this.currentModel == null) {
                this.process = undefined;
                await running.dispose();
            }
            this.settle(this.currentModel != null ? "ready" : "failed");
            throw error;
        }
    }

    /** Its process: the spare started ahead when there is one, else a new one. */
    private start(spare: ModelProcess | undefined): ModelProcess {
        const {activity: _activity, log, name: _name, spare: _spares, promptCache, ...settings} = this.options;
        const {log: _cacheLog, ...cache} = promptCache ?? {folder: ""};
        const init: ModelProcessInit = {...settings, ...promptCache != null && {promptCache: cache}};
        const handlers = {
            onMessage: (message: ChildMessage) => this.receive(message),
            failure: (exit: ProcessExit, expected: boolean) => this.exitError(exit, expected),
            onExit: (exit: ProcessExit, expected: boolean) => this.ended(started, exit, expected),
            log: (line: string) => log?.(`${this.options.name}: ${line}`)
        };
        const started: ModelProcess = (spare ?? new ModelProcess(warmBinding(this.options), handlers)).adopt(init, handlers);
        return started;
    }

    private running(): ModelProcess {
        if (this.process == null || this.currentState !== "ready")
            throw new EngineError("not_ready", this.currentState === "loading" ? "The model is still loading." : "No model is loaded.");
        return this.process;
    }

    private receive(message: ChildMessage): void {
        if ("stats" in message)
            this.lastStats = message.stats;
        if (message.type === "generation")
            this.generations.emit(message.summary);
        else if (message.type === "activity")
            this.mirror(message.snapshot);
        else if (message.type === "log")
            this.options.promptCache?.log?.(message.line);
    }

    /** The model process's activity applied here: generations begun and ended, tokens sampled. */
    private mirror(snapshot: ActivitySnapshot): void {
        for (let begun = this.mirrored.active; begun < snapshot.active; begun++)
            this.activity.begin();
        this.activity.tokens(snapshot.generatedTokens - this.mirrored.generatedTokens);
        for (let ended = snapshot.active; ended < this.mirrored.active; ended++)
            this.activity.end();
        this.mirrored = snapshot;
    }

    /** The process ended: asked to (a dispose), or not (a crash, a kill), which fails its model until the next load. */
    private ended(which: ModelProcess, exit: ProcessExit, expected: boolean): void {
        if (this.process !== which)
            return;
        this.process = undefined;
        this.mirror({active: 0, generatedTokens: this.mirrored.generatedTokens});
        if (!expected) {
            this.failure = exitReason(exit);
            this.options.log?.(`models: ${this.options.name}: ${this.failure}; it loads again on its next request`);
            this.settle("failed");
        }
    }

    /** What a call gets once the process has ended: an unload's abort, or the crash with its reason. */
    private exitError(exit: ProcessExit, expected: boolean): EngineError {
        return expected
            ? new EngineError("aborted", `The model '${this.options.name}' was unloaded.`)
            : new EngineError("model_crashed", `The model '${this.options.name}' stopped: ${exitReason(exit)}. `
                + "Its next request loads it again.", {model: this.options.name});
    }

    private settle(state: EngineState): void {
        if (state !== "ready" && state !== "loading") {
            this.currentModel = null;
            this.lastStats = null;
        }
        if (state === this.currentState)
            return;
        this.currentState = state;
        this.stateChanges.emit(state);
    }
}

/** Why a model process ended, for its model's `failure`: the signal or exit code and its last lines on stderr. */
function exitReason(exit: ProcessExit): string {
    const how = exit.signal != null ? `signal ${exit.signal}` : `exit code ${String(exit.code)}`;
    const lastLines = exit.stderr.split("\n").filter((line) => line.trim() !== "").slice(-3).join(" / ");
    return `the model's process ended (${how})${lastLines === "" ? "" : `: ${lastLines}`}`;
}

/** The backend a model process loads before its model: the engine's GPU choice and the most threads it evaluates with. */
export function warmBinding(options: Pick<LlamaEngineOptions, "gpu" | "threads" | "promptThreads">): WarmBinding {
    return {gpu: options.gpu ?? defaultGpu, maxThreads: backendThreads(options)};
}

/** A sequence held in the model process; released there (once), also when the generation was never started. */
class ProcessLease implements EngineLease {
    public readonly promptTokens: number;
    public readonly cachedPrefixTokens: number;
    private released = false;

    public constructor(private readonly process: ModelProcess, private readonly acquired: AcquiredLease) {
        this.promptTokens = acquired.promptTokens;
        this.cachedPrefixTokens = acquired.cachedPrefixTokens;
    }

    public generate(request: GenerationRequest): Promise<GenerationResult> {
        return this.process.call({type: "generate", lease: this.acquired.lease, request: plainRequest(request)},
            {onEvent: request.onEvent, onPrompt: request.onPromptProgress}, request.signal);
    }

    public release(): void {
        if (this.released)
            return;
        this.released = true;
        this.process.post({type: "release", lease: this.acquired.lease});
    }
}
