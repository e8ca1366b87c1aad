import type {ChatEngine, GenerationRequest, GenerationResult} from "./types.js";

/** `ChatEngine.generate` for every engine: acquire a lease for the request, generate on it, release it. */
export async function generateOnLease(engine: Pick<ChatEngine, "acquire">, request: GenerationRequest): Promise<GenerationResult> {
    const lease = await engine.acquire(request.turns, request.tools ?? [], request.signal, request);
    try {
        return await lease.generate(request);
    } finally {
        lease.release();
    }
}
