import type {ChatWrapper, LlamaContextSequence} from "node-llama-cpp";
import type {BusyPoll} from "./runtime/BusyPoll.js";
import {toChatHistory} from "./prompt/chatHistory.js";
import type {GenerationActivity} from "../GenerationActivity.js";
import type {LoadedModel, PreparedPrefix, RenderedPrompt} from "./runtime/LoadedModel.js";
import {planPlainCompletion} from "./generation/plainCompletion.js";
import {runGeneration} from "./generation/runGeneration.js";
import type {SequenceLease} from "./runtime/SequencePool.js";
import type {EngineLease, GenerationRequest, GenerationResult, GenerationSummary, PromptShape} from "../types.js";

/** What a lease takes from its engine for a generation: live activity, busy polling, stop text, where summaries go. */
export type LeaseContext = {
    activity: GenerationActivity,
    busyPoll: BusyPoll,
    stopSequences: readonly string[] | undefined,
    onGeneration: (summary: GenerationSummary) => void
};

/** The prompt as measured at acquire: rendered by `wrapper`, the wrapper the acquire's shape chose. */
export type AcquiredPrompt = {rendered: RenderedPrompt, wrapper: ChatWrapper};

/**
 * A sequence of a loaded model held for one generation, with its prompt already rendered and its prefix restored.
 * A state being saved after the generation holds the sequence (it must not change meanwhile); the lease ends after it.
 */
export class LlamaLease implements EngineLease {
    public readonly promptTokens: number;
    /** Prompt tokens the sequence held once prepared: kept from its last turn, copied from another sequence, or loaded from disk. */
    public readonly cachedPrefixTokens: number;
    private used = false;
    private saving: Promise<unknown> | undefined;

    public constructor(
        private readonly loaded: LoadedModel,
        private readonly lease: SequenceLease<LlamaContextSequence>,
        private readonly prompt: AcquiredPrompt,
        private readonly prefix: PreparedPrefix,
        private readonly shape: PromptShape,
        private readonly engine: LeaseContext
    ) {
        this.promptTokens = prompt.rendered.tokens.length;
        this.cachedPrefixTokens = prefix.tokens;
    }

    /** Tokens loaded from a saved state: a state that covers most of the prompt is not saved again. */
    private get restoredFromDisk(): number {
        return this.prefix.source === "disk" ? this.prefix.tokens : 0;
    }

    public readonly release = (): void => {
        if (this.saving == null)
            this.lease.release();
        else
            void this.saving.finally(() => this.lease.release());
    };

    public readonly generate = async (request: GenerationRequest): Promise<GenerationResult> => {
        if (this.used)
            throw new Error("An engine lease runs one generation.");
        this.used = true;
        const {loaded, lease} = this;
        // Unloading aborts what runs on the model it frees.
        const controller = new AbortController();
        const onAbort = () => controller.abort(request.signal?.reason);
        if (request.signal?.aborted)
            onAbort();
        request.signal?.addEventListener("abort", onAbort, {once: true});
        this.engine.activity.begin();
        const wrapper = loaded.variants.for(request);
        // The prompt was measured with the shape given at acquire; a different shape renders differently.
        const generationPrompt = wrapper === this.prompt.wrapper
            ? this.prompt.rendered
            : await loaded.renderPrompt(request.turns, request.tools ?? [], wrapper);
        const plain = request.json == null
            ? planPlainCompletion(generationPrompt.tokens, generationPrompt.state, wrapper, loaded.model, (request.tools ?? []).length > 0)
            : undefined;
        const running = Promise.all([
            loaded.chatFor(lease.sequence, wrapper),
            plain == null ? undefined : loaded.completionFor(lease.sequence).then((completion) => ({...plain, completion})),
            request.json == null ? undefined : loaded.grammars.get(request.json)
        ]).then(([chat, plainCompletion, grammar]) => runGeneration({
            chat,
            plain: plainCompletion,
            grammar,
            thinks: loaded.variants.thinks,
            textCalls: loaded.variants.textCallsOf(wrapper),
            sequence: lease.sequence,
            history: toChatHistory(request.turns),
            prompt: generationPrompt.tokens,
            promptStepTokens: loaded.context.batchSize,
            contextSize: loaded.info.contextSize,
            request: {...request, signal: controller.signal},
            onTokens: (count) => this.engine.activity.tokens(count),
            stopSequences: this.engine.stopSequences,
            afterDispatch: loaded.afterDispatch,
            busyPoll: this.engine.busyPoll,
            // The next turn renders this answer again: its tokens must be the ones the sequence holds.
            onAnswer: (text, tokens) => loaded.segments.rememberAnswer(text, tokens)
        }));
        loaded.active.set(controller, running.catch(() => undefined));
        const started = performance.now();
        try {
            const result = await running;
            loaded.speculative.record(result.usage);
            if (result.usage.cachedTokens > 0 && this.prefix.source != null)
                result.usage.prefixSource = this.prefix.source;
            // The next turn of this conversation waits for this sequence rather than start cold on another.
            lease.settle();
            if (this.shape.keepPromptOnDisk === true)
                this.saving = loaded.savePromptState(lease.sequence, this.restoredFromDisk, this.shape.cachePartition ?? "");
            this.engine.onGeneration({...result, durationMs: performance.now() - started});
            return result;
        } finally {
            request.signal?.removeEventListener("abort", onAbort);
            loaded.active.delete(controller);
            this.engine.activity.end();
        }
    };
}
