import type {MessageObject, MessagesErrorBody} from "./messagesWire.js";
import type {StreamEvent} from "../../protocol/wire.js";
import type {AdmittedResponse, PreparedResponse} from "../../responses/pipeline/preparedResponse.js";
import type {ResponsesService} from "../../responses/ResponsesService.js";
import {failedResponseError, isOutputFailure, toApiError} from "../../responses/engineErrors.js";
import type {OneBodyAnswer, ProtocolAdapter, RequestUsage} from "../ProtocolAdapter.js";
import {toMessagesError} from "./messagesErrors.js";
import {MessageAssembler, type MessagesEventSink} from "./MessageAssembler.js";
import {parseMessagesRequest, type MessagesRequest} from "./messagesRequest.js";

/** A Messages request checked and mapped: its Responses form, prepared, and what only Messages has. */
export type PreparedMessage = {request: MessagesRequest, prepared: PreparedResponse};

export type MessageRunOptions = {sink?: MessagesEventSink, signal?: AbortSignal};

/**
 * Anthropic's Messages API on the Responses domain's one generation path: a Messages body is mapped onto a Responses
 * create body (`messagesRequest.ts`, never stored) and goes through the same prepare → admit → run, so the engine,
 * queue, limits, metrics and prompt-cache reuse are those of every response; `MessageAssembler` turns the response's
 * events into Anthropic's. Transport-free, like `ResponsesService`.
 */
export class MessagesService implements ProtocolAdapter<PreparedMessage, MessageObject, MessagesEventSink> {
    public constructor(private readonly responses: ResponsesService) {}

    /** Every check that can refuse the request, before any generation. */
    public prepare(owner: string, body: unknown): PreparedMessage {
        const request = parseMessagesRequest(body);
        return {
            request,
            prepared: this.responses.prepare(owner, request.responsesBody, {stopSequences: request.stopSequences, protocol: "messages"})
        };
    }

    public streams(message: PreparedMessage): boolean {
        return message.request.stream;
    }

    /**
     * A sequence for the prompt: a full queue or an oversized prompt fails here, before any event (a stream's
     * `message_start` waits for it: it carries the prompt's usage).
     */
    public admit(message: PreparedMessage, signal?: AbortSignal): Promise<AdmittedResponse> {
        return this.responses.admit(message.prepared, signal);
    }

    /** Generates on an admitted lease (released when done); the events go to `sink`, the message is returned. */
    public async run(message: PreparedMessage, admitted: AdmittedResponse, options: MessageRunOptions = {}): Promise<MessageObject> {
        const assembler = new MessageAssembler(message.request, options.sink ?? (() => undefined));
        assembler.start(admitted.lease);
        const sink = (event: StreamEvent) => assembler.onEvent(event);
        const {response, stopSequence} = await this.responses.run(admitted, {signal: options.signal, sink});
        assembler.end(stopSequence);
        // A message answered in one body whose output failed validation is the request's error, as on the other
        // protocols, never a 200 with no stop reason (an engine failure is answered by the route with its own status;
        // a stream carried either as its `error` event already).
        if (response.status === "failed" && options.sink == null && isOutputFailure(response))
            throw failedResponseError(response);
        return assembler.result;
    }

    public async answer(message: PreparedMessage, admitted: AdmittedResponse,
        signal?: AbortSignal): Promise<OneBodyAnswer<MessageObject>> {
        const body = await this.run(message, admitted, {signal});
        return {body, usage: messageUsage(body)};
    }

    /** A failure after the stream opened: Anthropic's `error` event. */
    public streamError(error: unknown): MessagesErrorBody {
        return toMessagesError(toApiError(error)).body;
    }

    /** The prompt's tokens, rendered exactly as `run` renders it (system, turns and tools). */
    public async countTokens(owner: string, body: unknown): Promise<{input_tokens: number}> {
        const request = parseMessagesRequest(body, {countOnly: true});
        const counted = await this.responses.countInputTokens(owner, {...request.responsesBody, stream: false});
        return {input_tokens: counted.input_tokens};
    }
}

/** A message's tokens as the request log counts them: Anthropic leaves the cached prefix out of `input_tokens`. */
export function messageUsage(message: MessageObject): RequestUsage {
    const {usage} = message;
    return {input: usage.input_tokens + usage.cache_read_input_tokens, output: usage.output_tokens};
}
