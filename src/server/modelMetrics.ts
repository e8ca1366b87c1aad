import {Counter, Gauge, type Registry} from "prom-client";
import type {ChatEngine, LibraryModel} from "../engine/types.js";
import type {GenerationStats} from "../responses/pipeline/GenerationRunner.js";

const prefix = "local_responses_";

/**
 * The figures of each model, labelled `model` (a model's id: the library's names, a bounded set): generations and tokens
 * by model for every engine; with a model library, each model's state, memory estimate and requests in flight too.
 */
export class ModelMetrics {
    private readonly generations: Counter<"model" | "status">;
    private readonly tokens: Counter<"model" | "kind">;

    public constructor(registry: Registry, engine: ChatEngine) {
        const registers = [registry];
        this.generations = new Counter({
            name: `${prefix}model_generations_total`, help: "Finished generations by model and response status.",
            labelNames: ["model", "status"], registers
        });
        this.tokens = new Counter({
            name: `${prefix}model_tokens_total`, help: "Tokens by model and kind: input (prompt), cached (reused), output.",
            labelNames: ["model", "kind"], registers
        });
        const library = engine.library;
        if (library == null)
            return;
        const perModel = (name: string, help: string, read: (model: LibraryModel) => number) => new Gauge({
            name: `${prefix}${name}`, help, labelNames: ["model"], registers,
            collect() {
                this.reset();
                for (const model of library.list())
                    this.set({model: model.id}, read(model));
            }
        });
        perModel("model_loaded", "1 while a library model is loaded, else 0.", (model) => (model.status === "loaded" ? 1 : 0));
        perModel("model_memory_estimate_bytes", "node-llama-cpp's estimate of a library model's memory loaded (0: not estimated yet).",
            (model) => model.estimatedBytes ?? 0);
        perModel("model_requests_in_flight", "Requests holding or waiting for a library model (its load included).",
            (model) => model.inFlight);
    }

    public record(stats: GenerationStats): void {
        this.generations.inc({model: stats.model, status: stats.status});
        this.tokens.inc({model: stats.model, kind: "input"}, stats.inputTokens);
        this.tokens.inc({model: stats.model, kind: "cached"}, stats.cachedTokens);
        this.tokens.inc({model: stats.model, kind: "output"}, stats.outputTokens);
    }
}
