import {STATUS_CODES} from "node:http";
import {retryAfterSeconds, type ApiError} from "../protocol/errors.js";

/**
 * An OpenAI-shaped error as the bytes of a whole HTTP/1.1 response that closes the connection: for the answers written
 * straight to a socket, where no ServerResponse exists (a refused WebSocket handshake, a request Node's parser refused).
 */
export function rawErrorResponse(error: ApiError): string {
    const body = JSON.stringify(error.toBody());
    const retryAfter = retryAfterSeconds(error);
    return [
        `HTTP/1.1 ${error.sentStatus} ${STATUS_CODES[error.sentStatus] ?? "Error"}`,
        "Content-Type: application/json; charset=utf-8",
        `Content-Length: ${Buffer.byteLength(body)}`,
        ...(retryAfter == null ? [] : [`Retry-After: ${retryAfter}`]),
        "Connection: close",
        "",
        body
    ].join("\r\n");
}
