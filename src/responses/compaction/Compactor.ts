import type {ChatEngine, GenerationUsage, ToolSpec} from "../../engine/types.js";
import {
    expandCompactions, isCompactionSummary, newCompactionItem, planCompaction, transcriptText, type CompactionCodec
} from "./compaction.js";
import {toApiError} from "../engineErrors.js";
import {contextLengthExceeded, modelNotLoaded} from "../../protocol/errors.js";
import {itemsToTurns} from "../transcript.js";
import type {CompactionItem, Item} from "../../protocol/wire.js";

export type CompactorSettings = {
    /** Tokens of newest turns kept verbatim; defaults to 1/16 of the context, at most 8192. */
    keepTokens?: number | null,
    /** Summary length cap when the request gives none. Defaults to `defaultSummaryMaxTokens`. */
    summaryMaxTokens?: number
};

/** Tokens a compaction summary may take when the request gives no `max_output_tokens`. */
export const defaultSummaryMaxTokens = 1024;

export type CompactOptions = {
    keepTokens?: number | null,
    maxOutputTokens?: number | null,
    /** Per-request system text and tools: they count towards the rendered size but are never compacted. */
    instructions?: string | null,
    tools?: ToolSpec[],
    /** Whose cached prompts the summarizing generation may reuse (the caller's key; see `GenerationRequest.cachePartition`). */
    cachePartition?: string,
    /** The library model that counts and summarizes (the request's); absent: the engine's default. */
    model?: string,
    signal?: AbortSignal
};

export type CompactResult = {
    /** The history that replaces the input: system/developer messages, then the retained turns. */
    history: Item[],
    item: CompactionItem,
    usage: GenerationUsage,
    tokensBefore: number,
    tokensAfter: number
};

/** The endpoint's answer: a compacted history and its item, or the history unchanged (`item` null) when compacting would not help. */
export type CompactWindow = Omit<CompactResult, "item"> & {item: CompactionItem | null};

type CompactAttempt =
    | {kind: "compacted", result: CompactResult}
    | {kind: "nothing_to_summarize", tokensBefore: number}
    | {kind: "not_shorter", tokensBefore: number, tokensAfter: number, usage: GenerationUsage};

/**
 * A compaction done automatically before a generation (`context_management`): announced in its stream, its usage
 * counted in the response's.
 */
export type AutoCompaction = Omit<CompactResult, "history">;

const summarizerPrompt = "You compress conversations. Write a concise summary of the conversation below that keeps every fact, "
    + "decision, name, number and open task needed to continue it. Write only the summary.";

/**
 * Summarizes the older part of a history into one sealed `compaction` item, keeping the newest whole turns.
 * A history longer than the context is always refused (400 `context_length_exceeded`, nothing changed); what
 * happens when compacting cannot help depends on the caller (`compact` refuses, `compactWindow` passes through).
 */
export class Compactor {
    public constructor(
        private readonly engine: ChatEngine,
        public readonly codec: CompactionCodec,
        private readonly settings: CompactorSettings = {}
    ) {}

    /** The context of `model` (a library's model, loaded by the count that comes first), else of the one model. */
    public contextSize(model?: string): number {
        const info = model != null && this.engine.library != null
            ? this.engine.library.list().find((entry) => entry.id === model)?.info : this.engine.model;
        if (info == null)
            throw modelNotLoaded();
        return info.contextSize;
    }

    public defaultKeepTokens(model?: string): number {
        return this.settings.keepTokens ?? Math.min(8192, Math.floor(this.contextSize(model) / 16));
    }

    public get summaryMaxTokens(): number {
        return this.settings.summaryMaxTokens ?? defaultSummaryMaxTokens;
    }

    /** Items ready to render: compaction items replaced by their summaries. */
    public expand(items: readonly Item[]): Item[] {
        return expandCompactions(items, this.codec);
    }

    /** Rendered prompt tokens of a history, counted as `/v1/responses/input_tokens` counts them. */
    public async count(items: readonly Item[], options: Pick<CompactOptions, "instructions" | "tools" | "model"> = {}): Promise<number> {
        try {
            return await this.engine.countPromptTokens(itemsToTurns(this.expand(items), {instructions: options.instructions}),
                options.tools ?? [], options.model);
        } catch (error) {
            throw toApiError(error);
        }
    }

    /**
     * Compacts or refuses: auto-compaction (`compactIfNeeded`) must not go on with a history it could not shorten,
     * so nothing to summarize and a summary that saves nothing are both `400 context_length_exceeded` here.
     */
    public async compact(history: readonly Item[], options: CompactOptions = {}): Promise<CompactResult> {
        const attempt = await this.attempt(history, options);
        if (attempt.kind === "nothing_to_summarize")
            throw contextLengthExceeded("Nothing older than the latest turn is left to compact.");
        if (attempt.kind === "not_shorter")
            throw contextLengthExceeded(
                `Compaction would not shorten the history (${attempt.tokensBefore} tokens before, ${attempt.tokensAfter} `
                    + `after); nothing was changed.`
            );
        return attempt.result;
    }

    /**
     * `POST /v1/responses/compact`: a usable window for any history that fits the context, as OpenAI's endpoint
     * answers whenever a client chooses to call it. When nothing can be summarized, or the summary would not make
     * the prompt shorter, the window is the history unchanged (`item` null); `usage` still counts a summary generated.
     */
    public async compactWindow(history: readonly Item[], options: CompactOptions = {}): Promise<CompactWindow> {
        const attempt = await this.attempt(history, options);
        if (attempt.kind === "compacted")
            return attempt.result;
        return {
            history: [...history],
            item: null,
            usage: attempt.kind === "not_shorter" ? attempt.usage : {inputTokens: 0, cachedTokens: 0, outputTokens: 0, reasoningTokens: 0},
            tokensBefore: attempt.tokensBefore,
            tokensAfter: attempt.tokensBefore
        };
    }

    private async attempt(history: readonly Item[], options: CompactOptions): Promise<CompactAttempt> {
        const tokensBefore = await this.count(history, options);
        const contextSize = this.contextSize(options.model);
        if (tokensBefore > contextSize)
            throw contextLengthExceeded(
                `The history is ${tokensBefore} tokens, longer than the context of ${contextSize}: it cannot be summarized in one pass.`
            );

        const expanded = this.expand(history);
        const plan = await planCompaction(expanded, options.keepTokens ?? this.defaultKeepTokens(options.model),
            (items) => this.count(items, {model: options.model}));
        if (plan == null || plan.summarized.length === 0)
            return {kind: "nothing_to_summarize", tokensBefore};

        const summary = await this.summarize(plan.summarized, options.maxOutputTokens ?? this.summaryMaxTokens, options);
        const item = newCompactionItem(this.codec, {
            summary: summary.text,
            // Earlier compaction items are summarized again: the new one replaces them too.
            replaced: [...plan.summarized.filter((entry) => !isCompactionSummary(entry)).map((entry) => entry.id),
                ...history.filter((entry) => entry.type === "compaction").map((entry) => entry.id)],
            retained: plan.retained
        });
        const compacted = [...plan.kept, ...plan.retained];
        const tokensAfter = await this.count([...compacted, item], options);
        if (tokensAfter >= tokensBefore)
            return {kind: "not_shorter", tokensBefore, tokensAfter, usage: summary.usage};
        return {kind: "compacted", result: {history: compacted, item, usage: summary.usage, tokensBefore, tokensAfter}};
    }

    /**
     * `context_management` compaction: compacts when the rendered input reaches `threshold` or leaves no room
     * for output. Keeps and summary are sized from the threshold so that the next turns do not compact again at once.
     */
    public async compactIfNeeded(history: readonly Item[], threshold: number, options: CompactOptions = {}): Promise<CompactResult | null> {
        const tokens = await this.count(history, options);
        const contextSize = this.contextSize(options.model);
        if (tokens < threshold && tokens < contextSize)
            return null;
        const budget = Math.min(threshold, contextSize);
        return this.compact(history, {
            ...options,
            keepTokens: Math.min(this.defaultKeepTokens(options.model), Math.max(1, Math.floor(budget / 4))),
            maxOutputTokens: Math.max(16, Math.min(this.summaryMaxTokens, Math.floor(budget / 4)))
        });
    }

    private async summarize(items: readonly Item[], maxOutputTokens: number,
        {signal, cachePartition, model}: CompactOptions): Promise<{text: string, usage: GenerationUsage}> {
        try {
            const result = await this.engine.generate({
                model,
                turns: [
                    {role: "system", text: summarizerPrompt},
                    {role: "user", text: `${transcriptText(items)}\n\nSummarize the conversation above.`}
                ],
                maxOutputTokens,
                sampling: {temperature: 0},
                cachePartition,
                signal
            });
            return {text: result.text.trim(), usage: result.usage};
        } catch (error) {
            throw toApiError(error);
        }
    }
}
