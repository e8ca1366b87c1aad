import type {ResponseObject} from "../protocol/wire.js";
import type {AdmittedResponse} from "../responses/pipeline/preparedResponse.js";

/** What the request log counts for a request: the prompt's tokens (cached ones included) and the answer's. */
export type RequestUsage = {input: number, output: number};

/** An answer in one body: what the route sends, and what the request log counts. */
export type OneBodyAnswer<Body> = {body: Body, usage?: RequestUsage};

/** A response's tokens as the request log counts them (none when it has no usage). */
export function responseUsage(response: ResponseObject): RequestUsage | undefined {
    return response.usage == null ? undefined : {input: response.usage.input_tokens, output: response.usage.output_tokens};
}

/**
 * One foreign protocol over the Responses domain, as its route mounts it (ollama's server mounts each foreign
 * protocol's middleware over its one handler the same way): the protocol's body is checked and mapped onto a
 * prepared Responses request, admitted on the one engine, and answered in the protocol's own shape. Each protocol's
 * folder implements it (`ChatCompletionsService`, `MessagesService`); how a stream is written stays each protocol's
 * own (chunks ending in `[DONE]`, or named events), beside this shared shape.
 */
export interface ProtocolAdapter<Prepared, Body, Stream> {
    /** Every check that can refuse the request, before any generation. */
    prepare(owner: string, body: unknown): Prepared;
    /** Whether the client asked for a stream. */
    streams(prepared: Prepared): boolean;
    /** A sequence for the prompt (a full queue or an oversized prompt fails here); a stream's opening goes out if it waits. */
    admit(prepared: Prepared, signal?: AbortSignal, stream?: Stream): Promise<AdmittedResponse>;
    /** Generates an answer in one body; a failed response is the request's error, never a 200. */
    answer(prepared: Prepared, admitted: AdmittedResponse, signal?: AbortSignal): Promise<OneBodyAnswer<Body>>;
}
