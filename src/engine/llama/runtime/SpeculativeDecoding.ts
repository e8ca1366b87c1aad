import path from "node:path";
import type {Llama, LlamaContext, LlamaModel, TokenPredictor} from "node-llama-cpp";
import type {NodeLlamaCpp} from "../../models/loadBinding.js";
import type {GenerationUsage, SpeculativeKind} from "../../types.js";

/** What `--speculative` asks for: nothing, prompt lookup, or a draft model (a GGUF file with the target's vocabulary). */
export type SpeculativeSetting = {kind: "off"} | {kind: "lookup"} | {kind: "draft", modelPath: string};

/**
 * Tokens prompt lookup proposes at once: node-llama-cpp's default (1–3). Measured on stories260K (2 cores, 2026-12-04,
 * under load): 1–3 ran at 288 tokens/s where 1–8 ran at 239, both below the 557 without prediction, as most
 * proposals were refuted (docs/performance.md, "Speculative decoding").
 */
export const lookupPredictionLength = {min: 1, max: 3};

/** node-llama-cpp's default for DraftSequenceTokenPredictor's `maxTokens`, named so batch sizes can allow for it. */
export const draftPredictionMaxTokens = 16;

/**
 * Draft tokens a step waits for. node-llama-cpp's default (0) takes whatever the draft model has predicted so far,
 * which on a CPU is nothing: the draft runs beside the target on the same cores and never gets ahead of it.
 */
export const draftPredictionMinTokens = 4;

/** Predicted tokens: proposed and checked by the model (`drafted`), and confirmed (`accepted`). */
export type PredictionCounts = {drafted: number, accepted: number};

/**
 * Speculative decoding for one loaded model: each sequence gets its own token predictor (node-llama-cpp verifies every
 * predicted token against the model, so the output is unchanged), and a draft model, when asked for, is loaded beside
 * the target with one draft sequence per target sequence. Counts drafted and accepted tokens over the model's life.
 */
export class SpeculativeDecoding {
    private totals: PredictionCounts = {drafted: 0, accepted: 0};

    private constructor(
        public readonly kind: SpeculativeKind,
        private readonly binding: NodeLlamaCpp,
        private readonly draft: {model: LlamaModel, context: LlamaContext} | null
    ) {}

    /** Loads the draft model when the setting names one; its context mirrors the target's sequences and size. */
    public static async open(setting: SpeculativeSetting, binding: NodeLlamaCpp, llama: Llama,
        target: {contextSize: number, sequences: number, threads: number, gpuLayers: 0 | undefined}): Promise<SpeculativeDecoding> {
        if (setting.kind !== "draft")
            return new SpeculativeDecoding(setting.kind, binding, null);
        const model = await llama.loadModel({modelPath: path.resolve(setting.modelPath), gpuLayers: target.gpuLayers});
        try {
            const context = await model.createContext({
                contextSize: target.contextSize, sequences: target.sequences, threads: target.threads
            });
            return new SpeculativeDecoding("draft", binding, {model, context});
        } catch (error) {
            await model.dispose();
            throw error;
        }
    }

    /** A new predictor for one target sequence (a predictor is never shared between sequences); none when off. */
    public predictorForNewSequence(): TokenPredictor | undefined {
        if (this.kind === "lookup")
            return new this.binding.InputLookupTokenPredictor({predictionLength: lookupPredictionLength});
        if (this.draft != null)
            return new this.binding.DraftSequenceTokenPredictor(this.draft.context.getSequence(),
                {minTokens: draftPredictionMinTokens, maxTokens: draftPredictionMaxTokens});
        return undefined;
    }

    /** The most tokens a predictor proposes in one step (0 when off): a generation batch may hold this many more a sequence. */
    public get maxPredictedTokens(): number {
        return this.kind === "lookup" ? lookupPredictionLength.max : this.kind === "draft" ? draftPredictionMaxTokens : 0;
    }

    /** Adds one generation's predictions (its usage's drafted and accepted tokens) to the model's totals. */
    public record(usage: Pick<GenerationUsage, "draftedTokens" | "acceptedTokens">): void {
        this.totals = {
            drafted: this.totals.drafted + (usage.draftedTokens ?? 0), accepted: this.totals.accepted + (usage.acceptedTokens ?? 0)
        };
    }

    public get counts(): PredictionCounts {
        return this.totals;
    }

    /** Frees the draft model (the target's sequences dispose their predictors with them). */
    public async dispose(): Promise<void> {
        if (this.draft == null)
            return;
        await this.draft.context.dispose();
        await this.draft.model.dispose();
    }
}
