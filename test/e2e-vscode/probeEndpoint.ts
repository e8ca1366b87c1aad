/**
 * What a client gets from the endpoint right now: the HTTP status of `GET /v1/models` with this key, or
 * "refused" when nothing listens on the port (a stopped server).
 */
export async function probeEndpoint(endpoint: string, apiKey: string): Promise<number | "refused"> {
    try {
        const response = await fetch(`${endpoint}/models`,
            {headers: {authorization: `Bearer ${apiKey}`}, signal: AbortSignal.timeout(10_000)});
        await response.body?.cancel();
        return response.status;
    } catch (error) {
        const code = (error as {cause?: {code?: string}}).cause?.code;
        if (code === "ECONNREFUSED")
            return "refused";
        throw error;
    }
}
