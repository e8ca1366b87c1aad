import type {LocalResponsesHost} from "../../host/LocalResponsesHost.js";
import type {ControllerState} from "../controller/controllerState.js";
import type {StatusModel} from "./statusView.js";
import type {PromptProgress} from "../../engine/types.js";
import {PromptProgressTracker} from "./PromptProgressTracker.js";
import {TokenRate} from "./TokenRate.js";
import {describeChatFormat} from "../../host/chatFormatText.js";
import {backendNote, describeEngine} from "./engineDescription.js";
import {Emitter} from "../../protocol/Emitter.js";

/**
 * Totals since the extension started (surviving host rebuilds) and the live token rate, gathered from the
 * engine's activity and per-generation summaries. Listeners hear about every token: they throttle.
 */
export class ServerStats {
    private readonly counted = {inputTokens: 0, outputTokens: 0, cachedTokens: 0, generations: 0};
    private last: StatusModel["lastResponse"] = null;
    private readonly rate = new TokenRate();
    private readonly prompts = new PromptProgressTracker();
    private active = 0;
    private detach: (() => void) | undefined;
    private readonly changes = new Emitter<void>();

    public constructor(private readonly now: () => number = () => performance.now()) {}

    /** Follows this host from now on (and stops following the previous one). */
    public attach(host: LocalResponsesHost): void {
        this.detach?.();
        this.active = 0;
        this.rate.reset();
        const offActivity = host.engine.activity.onChange((snapshot) => {
            if (this.active === 0 && snapshot.active > 0)
                this.rate.reset();
            this.active = snapshot.active;
            if (snapshot.active === 0)
                this.prompts.clear();
            this.rate.record(this.now(), snapshot.generatedTokens);
            this.emit();
        });
        const offGeneration = host.engine.onGeneration((summary) => {
            this.counted.inputTokens += summary.usage.inputTokens;
            this.counted.outputTokens += summary.usage.outputTokens;
            this.counted.cachedTokens += summary.usage.cachedTokens;
            this.counted.generations++;
            this.last = {model: summary.model ?? null, inputTokens: summary.usage.inputTokens, outputTokens: summary.usage.outputTokens};
            this.emit();
        });
        this.detach = () => {
            offActivity();
            offGeneration();
        };
    }

    /** A response's prompt evaluation moved (the host's `onPromptProgress`). */
    public recordPromptProgress(responseId: string, progress: PromptProgress): void {
        this.prompts.record(responseId, progress);
        this.emit();
    }

    /** Tokens and responses since the extension started. */
    public get totals(): StatusModel["totals"] {
        return {...this.counted};
    }

    public onChange(listener: () => void): () => void {
        return this.changes.on(listener);
    }

    /** The status bar's model: controller state plus these counters. */
    public statusModel(state: ControllerState, queueDepth: number, activeJobs: number | null): StatusModel {
        const modelName = state.engine === "loading" || state.engine === "failed"
            ? baseName(state.pendingModelPath) ?? state.model?.id ?? null
            : state.model?.id ?? null;
        return {
            server: state.server,
            engine: state.engine,
            modelName,
            loadProgress: state.loadProgress,
            active: this.active,
            tokensPerSecond: this.active > 0 ? this.rate.perSecond(this.now()) : 0,
            endpoint: state.endpoint,
            answeredBy: describeEngine(state.engineKind, state.model),
            ...backendNote(state.model),
            ...state.model?.chatFormat != null && {chatFormat: describeChatFormat(state.model.chatFormat)},
            engineKind: state.engineKind,
            ...state.library != null && {library: {
                loaded: state.library.filter((model) => model.status === "loaded").map((model) => model.id), total: state.library.length
            }},
            totals: this.totals,
            lastResponse: this.last,
            prompt: this.prompts.view(),
            activeJobs,
            queueDepth
        };
    }

    public dispose(): void {
        this.detach?.();
        this.changes.clear();
    }

    private emit(): void {
        this.changes.emit();
    }
}

function baseName(modelPath: string | null): string | null {
    // "" is the upstream engine connecting to the upstreams' first model: no name yet.
    if (modelPath == null || modelPath === "")
        return null;
    return modelPath.split(/[\\/]/).at(-1)!.replace(/\.gguf$/i, "");
}
