import http from "node:http";
import https from "node:https";

/** A request that got no answer (refused, reset, DNS, aborted): whether it went out on a reused keep-alive connection. */
export class PostFailure extends Error {
    public constructor(cause: unknown, public readonly reusedSocket: boolean) {
        super(cause instanceof Error ? cause.message : String(cause), {cause});
        this.name = "PostFailure";
    }
}

/**
 * POSTs `body` with node:http(s) on `agent` and resolves with the answer once its status and headers arrived; its
 * body is read by the caller as a stream of Buffers. Rejects with `PostFailure` before an answer.
 * Not `fetch`: undici gives up on its own after 300 s without headers or body bytes (a long prompt evaluation
 * upstream), below `--upstream-timeout-secs`, and its web-stream body costs several promises per upstream read.
 * No timeout of its own: the caller's silence timer aborts through `signal`.
 */
export function postRequest(url: string, agent: http.Agent, headers: Record<string, string>, body: string,
    signal: AbortSignal): Promise<http.IncomingMessage> {
    return new Promise((resolve, reject) => {
        const target = new URL(url);
        const send = target.protocol === "https:" ? https.request : http.request;
        const request = send(target, {
            method: "POST", agent, signal,
            headers: {...headers, "content-length": String(Buffer.byteLength(body))}
        });
        request.setNoDelay(true);
        request.once("response", resolve);
        // Kept for the request's life: an abort after the answer arrived errors it again (the body's reader sees that).
        request.on("error", (error) => reject(new PostFailure(error, request.reusedSocket)));
        request.end(body);
    });
}

/**
 * Bytes of an upstream's error answer read for its message: a JSON error is a few hundred bytes, and one that never
 * ends (or a whole HTML page) must not fill memory; the rest is not read, and the answer's connection is closed.
 */
export const maxErrorBodyBytes = 64 * 1024;

/**
 * An answer's body as text (an error answer's message), at most `maxBytes` of it: `truncated` says the body went on,
 * and the answer is then destroyed rather than read to its end. What arrived before a cut connection is returned.
 */
export async function readText(response: http.IncomingMessage, maxBytes = maxErrorBodyBytes): Promise<{text: string, truncated: boolean}> {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let truncated = false;
    try {
        for await (const chunk of response) {
            const buffer = chunk as Buffer;
            chunks.push(bytes + buffer.length > maxBytes ? buffer.subarray(0, maxBytes - bytes) : buffer);
            bytes += buffer.length;
            if (bytes > maxBytes) {
                truncated = true;
                break;
            }
        }
    } catch {
        // cut: what arrived
    }
    return {text: Buffer.concat(chunks).toString("utf8"), truncated};
}
