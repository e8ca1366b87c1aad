import type {EngineLease, GenerationRequest, GenerationResult, GenerationUsage, PrefixSource, PromptProgress} from "../../engine/types.js";
import {describeForLog, requestAborted} from "../../protocol/errors.js";
import {abortKindOf, type AbortKind} from "../abortReasons.js";
import {toApiError} from "../engineErrors.js";
import {generationRequest} from "./generationRequest.js";
import type {HistoryOptions} from "./HistoryResolver.js";
import {OutputValidator} from "../outputValidation/OutputValidator.js";
import type {ResponseRepository} from "../ports.js";
import type {AdmittedResponse, ApiProtocol, GenerationOutcome, PreparedResponse} from "./preparedResponse.js";
import type {ReasoningReplay} from "../reasoning/ReasoningReplay.js";
import {PublicationBuffer, type EventSink} from "../publication/PublicationBuffer.js";
import {ResponseAssembler} from "./ResponseAssembler.js";
import {TerminalEventGate} from "../publication/TerminalEventGate.js";
import {responseTimings} from "../responseTimings.js";
import type {ResponseObject, ResponseStatus} from "../../protocol/wire.js";

export type GenerationStats = {
    protocol: ApiProtocol,
    /** The model that answered (the response's `model`). */
    model: string,
    /** Whose generation it was: `/metrics` and `/v1/status` show each key its own. */
    owner: string,
    inputTokens: number,
    cachedTokens: number,
    /** Where the cached tokens came from, when the engine tells (`GenerationUsage.prefixSource`). */
    prefixSource?: PrefixSource,
    outputTokens: number,
    timeToFirstTokenMs: number | null,
    durationMs: number,
    status: ResponseStatus
};

export type RunnerOptions = Pick<HistoryOptions, "conversations"> & {
    /** Told about every finished generation (metrics): usage, time to first token and generation time. */
    onGeneration?: (stats: GenerationStats) => void,
    /** Told about every generation stopped before it finished (metrics), with who stopped it. */
    onGenerationAborted?: (kind: AbortKind) => void,
    /** Told as each response's prompt is evaluated, step by step (the editor shows it while a long prompt runs). */
    onPromptProgress?: (responseId: string, progress: PromptProgress) => void,
    log?: (line: string) => void
};

export type RunOptions = {
    sink?: EventSink,
    signal?: AbortSignal
};

/** How a generation ended: its result, or the failed response an engine error made of it. */
type Generated = {kind: "finished", result: GenerationResult} | {kind: "failed", response: ResponseObject};

/**
 * Runs an admitted response and publishes it: the engine's events become output items and stream events (through a
 * `ResponseAssembler`), held content is published once it validates, and the finished response is stored, appended
 * to its conversation and counted.
 */
export class GenerationRunner {
    public constructor(
        private readonly store: ResponseRepository,
        private readonly reasoning: ReasoningReplay,
        private readonly options: RunnerOptions = {}
    ) {}

    /**
     * Opens the stream of a request that passed every check and must wait for a sequence: `response.created` goes out
     * before the wait, as OpenAI sends it at once, so a client whose idle timer counts events (Codex) sees the stream
     * begin, then its keep-alives, instead of minutes of nothing. Returns the stream's next sequence number, which
     * `run` continues from (`AdmittedResponse.announcedThrough`).
     */
    public announce(prepared: PreparedResponse, sink: EventSink): number {
        const publication = new PublicationBuffer(sink);
        new ResponseAssembler(prepared.response, publication).created();
        return publication.nextSequenceNumber;
    }

    /** Generates on an admitted lease and stores the result; the lease is released when done. */
    public async run(admitted: AdmittedResponse, options: RunOptions = {}): Promise<GenerationOutcome> {
        const {prepared, compaction} = admitted;
        const {history} = prepared;
        const validator = new OutputValidator(prepared.params.textFormat, prepared.params.tools.strict);
        const gate = new TerminalEventGate(options.sink ?? (() => undefined));
        const assembler = this.openStream(admitted, validator.holds, gate.publish);
        const request = generationRequest(prepared, {
            signal: options.signal,
            onEvent: (event) => assembler.onEngineEvent(event),
            onPromptProgress: this.options.onPromptProgress == null ? undefined
                : (progress) => this.options.onPromptProgress!(prepared.response.id, progress)
        });
        const started = performance.now();
        const generated = await this.generate(admitted.lease, request, assembler, options.signal);
        if (generated.kind === "failed")
            return {response: generated.response, history};
        const {result} = generated;
        const timings = responseTimings({
            acceptedAt: prepared.acceptedAt, startedAt: started, endedAt: performance.now(), timeToFirstTokenMs: result.timeToFirstTokenMs,
            usage: result.usage
        });
        const ended = {history, timings, ...(result.stopSequence != null ? {stopSequence: result.stopSequence} : {})};

        // OpenAI bills automatic compaction as part of the response: its summary generation counts in `usage`.
        const usage = compaction == null ? result.usage : addUsage(result.usage, compaction.usage);
        const rejection = validator.check(result);
        if (rejection != null)
            return {response: assembler.fail(rejection.code, rejection.message, usage), ...ended};
        const response = assembler.finish(result, usage, validator.holds ? validator.unvalidatedCut : null);
        const writes = this.record(prepared, {response, ...ended}, result, started);
        // Durable before acknowledged: a write the disk refused, retries included, rejects (507 or 503, the store's
        // error) and the terminal event stays held; the transport reports the error instead of a response not stored.
        if (writes.length > 0)
            await Promise.all(writes);
        gate.open();
        return {response, ...ended};
    }

    /** The response's assembler, its stream opened: created (unless announced), in progress, then any compaction's events. */
    private openStream(admitted: AdmittedResponse, holdContent: boolean, sink: EventSink): ResponseAssembler {
        const {params, response} = admitted.prepared;
        const publication = new PublicationBuffer(sink, {holdContent, firstSequenceNumber: admitted.announcedThrough});
        const assembler = new ResponseAssembler(response, publication, {
            customTools: params.tools.custom,
            namespacedTools: params.tools.namespaced,
            toolSearch: params.tools.toolSearch,
            sealReasoning: this.reasoning.sealerFor(params)
        });
        assembler.begin({announced: admitted.announcedThrough != null, compaction: admitted.compaction});
        return assembler;
    }

    /**
     * Runs the engine on the lease and releases it. An engine error fails the response (published as
     * `response.failed`); a stop by `signal` or by the client going away rejects, and nothing is stored.
     */
    private async generate(lease: EngineLease, request: GenerationRequest, assembler: ResponseAssembler,
        signal?: AbortSignal): Promise<Generated> {
        let result;
        try {
            result = await lease.generate(request);
        } catch (error) {
            const apiError = toApiError(error);
            if (signal?.aborted) {
                this.options.onGenerationAborted?.(abortKindOf(signal.reason));
                throw apiError;
            }
            if (apiError.status >= 500)
                this.options.log?.(`generation failed: ${describeForLog(apiError)}`);
            return {kind: "failed", response: assembler.fail(apiError.code ?? "server_error", apiError.message)};
        } finally {
            lease.release();
        }
        if (result.stopReason === "abort") {
            this.options.onGenerationAborted?.(abortKindOf(signal?.reason));
            // The client went away: a disconnected foreground generation is not stored.
            throw requestAborted();
        }
        return {kind: "finished", result};
    }

    /**
     * What a finished response leaves behind: reasoning to re-inject, the stored response, its conversation's new items,
     * metrics. Returns the storage writes to wait for before the response is reported finished (none if nothing was kept).
     */
    private record(prepared: PreparedResponse, outcome: GenerationOutcome, result: GenerationResult, started: number): Promise<void>[] {
        const {params} = prepared;
        const {response} = outcome;
        const writes: Promise<void>[] = [];
        this.reasoning.remember(prepared.owner, response.output);
        if (params.store && this.store.put(prepared.owner, response, outcome.history, outcome.timings))
            writes.push(this.store.written());
        const conversations = this.options.conversations;
        if (params.conversationId != null && response.output.length > 0
            && conversations?.append(prepared.owner, params.conversationId, [...prepared.input, ...response.output]))
            writes.push(conversations.written());
        this.options.onGeneration?.({
            protocol: prepared.protocol,
            model: response.model,
            owner: prepared.owner,
            inputTokens: result.usage.inputTokens,
            cachedTokens: result.usage.cachedTokens,
            prefixSource: result.usage.prefixSource,
            outputTokens: result.usage.outputTokens,
            timeToFirstTokenMs: result.timeToFirstTokenMs,
            durationMs: performance.now() - started,
            status: response.status
        });
        return writes;
    }
}

/** Two generations' usage as one: the answer and the summary an automatic compaction generated for it. */
function addUsage(answer: GenerationUsage, summary: GenerationUsage): GenerationUsage {
    return {
        inputTokens: answer.inputTokens + summary.inputTokens,
        cachedTokens: answer.cachedTokens + summary.cachedTokens,
        // The answer's prompt is the request's: its prefix is the one a client asked about.
        ...answer.prefixSource != null && {prefixSource: answer.prefixSource},
        outputTokens: answer.outputTokens + summary.outputTokens,
        reasoningTokens: answer.reasoningTokens + summary.reasoningTokens
    };
}
