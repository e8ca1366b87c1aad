import {EngineError} from "../../engine/EngineError.js";
import type {ChatEngine} from "../../engine/types.js";
import type {GenerationStats} from "../../responses/pipeline/GenerationRunner.js";
import {RawRequests} from "../../protocols/RawRequests.js";
import {Emitter} from "../../protocol/Emitter.js";
import type {ControllerState} from "../controller/controllerState.js";
import {completionAvailability, type AvailabilityInputs, type CompletionAvailability} from "./completionAvailability.js";
import {suggestCompletion, type SuggestionInput, type SuggestionLimits} from "./suggestCompletion.js";
import {SuggestionStats, type SuggestionEnd} from "./SuggestionStats.js";

/**
 * The owner of the editor's completions: their prompt-cache partition of their own (`ResponsesService.cachePartition`),
 * apart from every API key's and from the editor's chat, so the file's prefix a suggestion read stays for the next one.
 */
export const completionsOwner = "vscode.completions";

/** What the completions read of a core: its engine, its partition rule, and its metrics. */
export type CompletionCore = {
    engine: ChatEngine,
    responses: {cachePartition(owner: string): string},
    metrics: {recordGeneration(stats: GenerationStats): void, recordEditorSuggestion(outcome: SuggestionEnd | "accepted"): void}
};

/** The controller as the completions follow it (`HostController`). */
export type CompletionController = {
    readonly state: Pick<ControllerState, "engineKind" | "model" | "library">,
    onChange(listener: () => void): () => void,
    onHost(listener: (core: CompletionCore) => void): () => void
};

export type CompletionSettings = SuggestionLimits & {enabled: boolean, model: string | null, debounceMs: number};

/**
 * The editor's code completion without the editor: whether it runs and from which model, one suggestion asked of the
 * current core's engine in process (no HTTP: `RawRequests` routes it, in the completions' own cache partition, and
 * counts it in `/metrics` as `vscode_completions`), and what each one came to (`SuggestionStats`, and `/metrics`'
 * `editor_suggestions_total`). The provider (`InlineSuggestions`) only converts the editor's classes.
 */
export class EditorCompletions {
    public readonly stats = new SuggestionStats();
    private core: {raw: RawRequests, metrics: CompletionCore["metrics"]} | null = null;
    private refusal: AvailabilityInputs["refusal"] = null;
    private readonly changes = new Emitter<void>();
    private readonly unsubscribes: (() => void)[];

    public constructor(private readonly controller: CompletionController, private settings: CompletionSettings) {
        let shownModel = controller.state.model?.id;
        this.unsubscribes = [
            controller.onHost((core) => {
                this.core = {
                    metrics: core.metrics,
                    raw: new RawRequests({
                        engine: core.engine, cachePartition: (owner) => core.responses.cachePartition(owner),
                        onFinished: (stats) => core.metrics.recordGeneration(stats)
                    })
                };
                this.changes.emit();
            }),
            controller.onChange(() => {
                // Another model loaded: the refusal of the last one no longer says anything.
                if (controller.state.model?.id === shownModel)
                    return;
                shownModel = controller.state.model?.id;
                this.refusal = null;
                this.changes.emit();
            }),
            this.stats.onChange(() => this.changes.emit())
        ];
    }

    public get limits(): CompletionSettings {
        return this.settings;
    }

    public update(settings: CompletionSettings): void {
        if (settings.model !== this.settings.model)
            this.refusal = null;
        this.settings = settings;
        this.changes.emit();
    }

    public get availability(): CompletionAvailability {
        const {engineKind, model, library} = this.controller.state;
        return completionAvailability({
            enabled: this.settings.enabled, model: this.settings.model, engineKind, loaded: model, library: library != null,
            refusal: this.refusal
        });
    }

    /**
     * The ghost text at the cursor, or null (nothing worth showing, cancelled by `signal`, or failed: said in `stats`
     * and, for a model without fill-in-the-middle tokens, in `availability`). Not asked while unavailable.
     */
    public async suggest(input: SuggestionInput, signal: AbortSignal): Promise<string | null> {
        const availability = this.availability;
        if (availability.state !== "on" || this.core == null)
            return null;
        const {raw, metrics} = this.core;
        const end = (outcome: SuggestionEnd, latencyMs?: number) => {
            this.stats.ended(outcome, latencyMs);
            metrics.recordEditorSuggestion(outcome);
        };
        const started = performance.now();
        try {
            const route = raw.route(completionsOwner, {model: availability.model ?? null, keepAlive: undefined}, signal);
            const outcome = await suggestCompletion(route.engine, input, this.settings, route.routing);
            raw.completed(route, "vscode_completions", outcome.result);
            if (signal.aborted || outcome.result.stopReason === "abort")
                end("cancelled");
            else
                end(outcome.text == null ? "empty" : "shown", performance.now() - started);
            return signal.aborted ? null : outcome.text;
        } catch (error) {
            if (signal.aborted) {
                end("cancelled");
                return null;
            }
            end("failed");
            if (error instanceof EngineError && (error.kind === "unsupported" || error.kind === "model_not_found")) {
                this.refusal = {model: this.settings.model, message: `Code completion is off: ${error.message}`};
                this.changes.emit();
            }
            throw error;
        }
    }

    /** The person accepted a shown suggestion (the item's command ran). */
    public accepted(): void {
        this.stats.accepted();
        this.core?.metrics.recordEditorSuggestion("accepted");
    }

    public onChange(listener: () => void): () => void {
        return this.changes.on(listener);
    }

    public dispose(): void {
        for (const unsubscribe of this.unsubscribes)
            unsubscribe();
        this.stats.dispose();
        this.changes.clear();
    }
}
