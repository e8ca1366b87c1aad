import type {LlamaModel, Token} from "node-llama-cpp";
import type {AfterDispatch} from "../runtime/AfterDispatch.js";
import {AnswerTokenBudget} from "./AnswerTokenBudget.js";
import type {BusyPoll} from "../runtime/BusyPoll.js";
import {DeferredEvents} from "./DeferredEvents.js";
import {StopSequenceDetector} from "./StopSequenceDetector.js";
import type {GenerationEvent, GenerationRequest, PromptProgress} from "../../types.js";

export type AnswerAccountantOptions = {
    request: GenerationRequest,
    maxTokens: number,
    /** The operator's stop sequences (`--stop`); the request's are added. None apply under a grammar. */
    stopSequences: readonly string[],
    constrained: boolean,
    afterDispatch: AfterDispatch,
    busyPoll?: BusyPoll,
    onTokens?: (count: number) => void
};

/**
 * One generation's answer as it is produced, whichever of node-llama-cpp's APIs produces it (the chat and the plain
 * completion strategies both feed it): the events the consumer gets (thoughts and text, deferred off the token loop),
 * the tokens behind the text, stop sequences, a plain answer's token budget, the first token's time and the prompt's
 * last progress report. `runGeneration` reads the outcome.
 */
export class AnswerAccountant {
    public readonly events: DeferredEvents;
    /** Stop sequences (the operator's and the request's) end the answer as an end-of-turn would. */
    public readonly stops: StopSequenceDetector;
    /** Caps a plain answer at maxTokens (see AnswerTokenBudget). */
    public readonly budget: AnswerTokenBudget;
    /** The tokens behind `text` events, scored after generation when logprobs are asked for. */
    public readonly answerTokens: Token[] = [];
    public answer = "";
    public reasoningTokens = 0;
    /** The last tokens released (answer or thought): what the model wrote after them was never released (unplacedTokens.ts). */
    public lastReleased: readonly Token[] = [];
    public firstTokenAt: number | null = null;
    /** The prompt's progress when its steps ended (all in once the first output token comes). */
    public prefilled: PromptProgress | undefined;
    /** Ends the generation early: a stop sequence was seen, or the event consumer failed. */
    private readonly stopController = new AbortController();
    private inThought = false;
    private readonly cadence: ReturnType<BusyPoll["follow"]> | undefined;

    public constructor(private readonly options: AnswerAccountantOptions) {
        const {request} = options;
        this.events = new DeferredEvents(request.onEvent, options.afterDispatch, () => this.stopController.abort());
        this.stops = new StopSequenceDetector(options.constrained ? [] : [...options.stopSequences, ...request.stopSequences ?? []]);
        this.budget = new AnswerTokenBudget(options.maxTokens);
        this.cadence = options.busyPoll?.follow();
    }

    /** Aborted once a stop sequence is seen or the consumer failed. */
    public get stopSignal(): AbortSignal {
        return this.stopController.signal;
    }

    public emit(event: GenerationEvent): void {
        this.events.emit(event);
    }

    /** Counts generated tokens as they are produced (the first one's time is the time to first token). */
    public countTokens(tokens: readonly Token[]): void {
        if (tokens.length === 0)
            return;
        this.lastReleased = tokens;
        if (this.firstTokenAt == null && this.prefilled != null)
            // The prompt's last step was evaluated with the first output token: the prompt is all in.
            this.options.request.onPromptProgress?.({...this.prefilled, evaluated: this.prefilled.total});
        this.firstTokenAt ??= performance.now();
        this.cadence?.tokens();
        this.options.onTokens?.(tokens.length);
    }

    /** A chunk of the answer (not a thought); the generation is aborted once a stop sequence is seen. */
    public answerChunk(tokens: readonly Token[], text: string): void {
        if (this.stops.stopped)
            return;
        this.answerTokens.push(...tokens);
        this.emitText(this.stops.push(text));
        if (this.stops.stopped)
            this.stopController.abort();
    }

    /** A chunk of a thought segment, and whether the segment ended with it. */
    public thoughtChunk(tokens: readonly Token[], text: string, ended: boolean): void {
        this.reasoningTokens += tokens.length;
        this.inThought = true;
        if (text !== "")
            this.emit({type: "thought", text});
        if (ended) {
            this.inThought = false;
            this.emit({type: "thought.end"});
        }
    }

    /** The text of the part of a release the budget kept, when it cut one. */
    public keptText(model: LlamaModel, tokens: readonly Token[]): string {
        return detokenizeAfter(model, tokens, this.budget.taken.slice(0, this.budget.taken.length - tokens.length));
    }

    /** Stops following the token cadence (the generation ended, or failed). */
    public endCadence(): void {
        this.cadence?.end();
    }

    /** Publishes what the stop detector held back and closes an open thought; every event reaches the consumer. */
    public finish(): void {
        if (!this.stops.stopped)
            this.emitText(this.stops.flush());
        if (this.inThought)
            this.emit({type: "thought.end"});
        this.events.finish();
    }

    private emitText(text: string): void {
        if (text === "")
            return;
        if (this.inThought) {
            this.inThought = false;
            this.emit({type: "thought.end"});
        }
        this.answer += text;
        this.emit({type: "text", text});
    }
}

/**
 * The text of `tokens` as `LlamaCompletion` gives it to `onTextChunk`: detokenized after the answer's tokens before them
 * (`previous`), so that a SentencePiece word keeps its leading space. node-llama-cpp reads only the last few of those
 * (3 in 3.21.1); the slice bounds the copy.
 */
export function detokenizeAfter(model: LlamaModel, tokens: readonly Token[], previous: readonly Token[]): string {
    return model.detokenize(tokens, false, previous.slice(-recentTokensForDetokenizing));
}

/** More than node-llama-cpp's `maxRecentDetokenizerTokens`, which it does not export. */
const recentTokensForDetokenizing = 8;
