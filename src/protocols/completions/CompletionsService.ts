import type {RawRequests, RawRoute, RawUsage} from "../RawRequests.js";
import {parseCompletionsRequest, type CompletionsRequest} from "./completionsRequest.js";
import {TextCompletionWriter, type TextCompletionBody} from "./completionWire.js";

/** A checked `/v1/completions` request on its route. */
export type PreparedCompletion = {request: CompletionsRequest, route: RawRoute, writer: TextCompletionWriter};

/**
 * `POST /v1/completions` over the engine's `complete`: OpenAI's `text_completion` object, or its chunks (text as it is
 * generated, then the finish, the usage when asked, and `[DONE]`).
 */
export class CompletionsService {
    public constructor(private readonly raw: RawRequests) {}

    public prepare(owner: string, body: unknown, signal: AbortSignal): PreparedCompletion {
        const request = parseCompletionsRequest(body);
        const route = this.raw.route(owner, {model: request.model, keepAlive: request.keepAlive}, signal);
        return {request, route, writer: new TextCompletionWriter(route.model)};
    }

    public async answer({request, route, writer}: PreparedCompletion): Promise<{body: TextCompletionBody, usage: RawUsage}> {
        const result = await route.engine.complete({...route.routing, ...request.completion});
        const body = writer.completion(result, request.echo ? request.completion.prompt : "");
        return {body, usage: this.raw.completed(route, "completions", result)};
    }

    /** Streams the completion through `send` (a string is sent as it is); nothing is sent before the first token. */
    public async stream({request, route, writer}: PreparedCompletion, send: (data: unknown) => void): Promise<RawUsage> {
        let echoed = request.echo ? request.completion.prompt : "";
        const result = await route.engine.complete({...route.routing, ...request.completion, onText: (text) => {
            send(writer.textChunk(echoed + text));
            echoed = "";
        }});
        if (echoed !== "")
            send(writer.textChunk(echoed));
        send(writer.finishChunk(result));
        if (request.includeUsage)
            send(writer.usageChunk(result));
        send("[DONE]");
        return this.raw.completed(route, "completions", result);
    }
}
