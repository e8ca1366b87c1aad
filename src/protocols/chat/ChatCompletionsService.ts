import type {ChatCompletion} from "./chatWire.js";
import type {ResponseObject} from "../../protocol/wire.js";
import {failedResponseError} from "../../responses/engineErrors.js";
import {responseUsage, type OneBodyAnswer, type ProtocolAdapter} from "../ProtocolAdapter.js";
import type {AdmittedResponse, PreparedResponse} from "../../responses/pipeline/preparedResponse.js";
import type {ResponsesService} from "../../responses/ResponsesService.js";
import {ChatChunkWriter, type ChunkSink} from "./ChatChunkWriter.js";
import {toChatCompletion} from "./chatCompletion.js";
import {parseChatRequest, type ChatRequest} from "./chatRequest.js";

/** A Chat Completions request checked and mapped: its Responses form, prepared, and what only Chat Completions has. */
export type PreparedChat = {request: ChatRequest, prepared: PreparedResponse};

/** A streamed request's chunk writer: it starts while the request waits for a sequence and goes on through the run. */
export type ChatStream = {writer: ChatChunkWriter};

/**
 * Chat Completions on the Responses domain's one generation path, as `MessagesService` is Anthropic's: a body is
 * mapped onto a Responses create body (`chatRequest.ts`, never stored) and goes through the same prepare → admit →
 * run (one engine, queue, limits, metrics and prompt cache); the result is a `chat.completion`, or `chat.completion.chunk`s
 * written by `ChatChunkWriter`. Transport-free: the route only mounts it.
 */
export class ChatCompletionsService implements ProtocolAdapter<PreparedChat, ChatCompletion, ChatStream> {
    public constructor(private readonly responses: ResponsesService) {}

    /** Every check that can refuse the request, before any generation. */
    public prepare(owner: string, body: unknown): PreparedChat {
        const request = parseChatRequest(body);
        return {
            request,
            prepared: this.responses.prepare(owner, request.responsesBody,
                {stopSequences: request.stopSequences, protocol: "chat_completions"})
        };
    }

    public streams(chat: PreparedChat): boolean {
        return chat.request.stream;
    }

    /** The writer of a streamed request's chunks, handed to `sink`. */
    public stream(chat: PreparedChat, sink: ChunkSink): ChatStream {
        return {writer: new ChatChunkWriter(sink, chat.request)};
    }

    /** A sequence for the prompt (a full queue or an oversized prompt fails here); a stream's first chunk goes out if it waits. */
    public admit(chat: PreparedChat, signal?: AbortSignal, stream?: ChatStream): Promise<AdmittedResponse> {
        return this.responses.admit(chat.prepared, signal, stream == null ? undefined : (event) => stream.writer.onEvent(event));
    }

    /** Generates a streamed answer: its chunks go to the stream's writer, the finished response is returned. */
    public async runStream(admitted: AdmittedResponse, stream: ChatStream, signal?: AbortSignal): Promise<ResponseObject> {
        const {response} = await this.responses.run(admitted, {signal, sink: (event) => stream.writer.onEvent(event)});
        return response;
    }

    public async answer(chat: PreparedChat, admitted: AdmittedResponse, signal?: AbortSignal): Promise<OneBodyAnswer<ChatCompletion>> {
        const {completion, response} = await this.complete(chat, admitted, signal);
        return {body: completion, usage: responseUsage(response)};
    }

    /**
     * Generates an answer in one body: the `chat.completion` and the response it came from (its usage). A failed
     * response is the request's error, as OpenAI answers one, never a 200.
     */
    public async complete(chat: PreparedChat, admitted: AdmittedResponse,
        signal?: AbortSignal): Promise<{completion: ChatCompletion, response: ResponseObject}> {
        const {response} = await this.responses.run(admitted, {signal});
        if (response.status === "failed")
            throw failedResponseError(response);
        return {completion: toChatCompletion(response, {logprobs: chat.request.logprobs}), response};
    }
}
