import type {RawRequests, RawUsage} from "../RawRequests.js";
import {parseEmbeddingsRequest} from "./embeddingsRequest.js";
import {embeddingList, type EmbeddingListBody} from "./embeddingWire.js";

/** `POST /v1/embeddings` over the engine's `embed`: OpenAI's embedding list. */
export class EmbeddingsService {
    public constructor(private readonly raw: RawRequests) {}

    public async answer(owner: string, body: unknown, signal: AbortSignal): Promise<{body: EmbeddingListBody, usage: RawUsage}> {
        const request = parseEmbeddingsRequest(body);
        const route = this.raw.route(owner, {model: request.model, keepAlive: request.keepAlive}, signal);
        const started = performance.now();
        const result = await route.engine.embed({...route.routing, inputs: request.inputs});
        const list = embeddingList(result, route.model, request);
        return {body: list, usage: this.raw.embedded(route, result.inputTokens, performance.now() - started)};
    }
}
