import type {RawRequests, RawRoute, RawUsage} from "../RawRequests.js";
import {parseInfillRequest, type InfillRequest} from "./infillRequest.js";
import {infillAnswer, infillChunk, type InfillAnswerBody} from "./infillWire.js";

/** A checked `/infill` request on its route. */
export type PreparedInfill = {request: InfillRequest, route: RawRoute};

/**
 * `POST /infill` over the engine's `complete` with the model's fill-in-the-middle tokens: llama.cpp server's answer,
 * or its stream of `{content, stop: false}` chunks ending in the whole answer's counts with `stop: true`.
 */
export class InfillService {
    public constructor(private readonly raw: RawRequests) {}

    public prepare(owner: string, body: unknown, signal: AbortSignal): PreparedInfill {
        const request = parseInfillRequest(body);
        const route = this.raw.route(owner, {model: request.model, keepAlive: request.keepAlive}, signal);
        // Without cache_prompt the prompt must not start from a cached prefix: a partition of its own starts it cold.
        if (!request.cachePrompt)
            route.routing.cachePartition = `${route.routing.cachePartition}\u0000uncached-${Math.random()}`;
        return {request, route};
    }

    public async answer({request, route}: PreparedInfill): Promise<{body: InfillAnswerBody, usage: RawUsage}> {
        const result = await route.engine.complete({...route.routing, ...request.completion});
        return {body: infillAnswer(result, route.model, result.text), usage: this.raw.completed(route, "infill", result)};
    }

    public async stream({request, route}: PreparedInfill, send: (data: unknown) => void): Promise<RawUsage> {
        const result = await route.engine.complete({...route.routing, ...request.completion, onText: (text) => send(infillChunk(text))});
        send(infillAnswer(result, route.model, ""));
        return this.raw.completed(route, "infill", result);
    }
}
