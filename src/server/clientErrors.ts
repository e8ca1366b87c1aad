import type {ServerResponse} from "node:http";
import type {Duplex} from "node:stream";
import {headerFieldsTooLarge, invalidHttpRequest, requestTimeout, requestTooLarge, type ApiError} from "../protocol/errors.js";
import {rawErrorResponse} from "./rawErrorResponse.js";

/** What each refusal of Node's HTTP parser (llhttp) means to a client, by error code. */
const parserRefusals: Record<string, string> = {
    HPE_INVALID_URL: "The request target holds a character HTTP does not allow (such as a space or a control "
        + "character); percent-encode it.",
    HPE_INVALID_METHOD: "The request line does not start with an HTTP method.",
    HPE_INVALID_CONSTANT: "The request is not HTTP/1.1.",
    HPE_INVALID_VERSION: "The request line does not end with a valid HTTP version.",
    HPE_INVALID_HEADER_TOKEN: "A header name or value holds a character HTTP does not allow.",
    HPE_INVALID_CONTENT_LENGTH: "The Content-Length header is not a single decimal number.",
    HPE_UNEXPECTED_CONTENT_LENGTH: "Content-Length cannot be combined with Transfer-Encoding.",
    HPE_INVALID_TRANSFER_ENCODING: "The Transfer-Encoding header is not valid (only 'chunked', last, is understood).",
    HPE_INVALID_CHUNK_SIZE: "A chunk size of the chunked body is not a hexadecimal number.",
    HPE_STRICT: "The request breaks HTTP/1.1's framing rules.",
    HPE_LF_EXPECTED: "The request breaks HTTP/1.1's framing rules (a line does not end with CRLF).",
    HPE_CR_EXPECTED: "The request breaks HTTP/1.1's framing rules (a line does not end with CRLF)."
};

/** The API error for a request Node's HTTP server refused before the app saw it. */
export function clientErrorToApiError(error: {code?: string}): ApiError {
    switch (error.code) {
        case "HPE_HEADER_OVERFLOW":
            return headerFieldsTooLarge();
        case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
            return requestTooLarge("The chunk extensions of the request body are too large.");
        case "ERR_HTTP_REQUEST_TIMEOUT":
            return requestTimeout();
        default:
            return invalidHttpRequest(parserRefusals[error.code ?? ""] ?? "The request is not valid HTTP/1.1.");
    }
}

/**
 * Node's `clientError` default answers with an empty body; this one writes the OpenAI error shape, under the
 * same rule Node follows: only while the connection is writable and no answer to an in-flight request has begun
 * (a bad chunk arrives after the app got the request), else it just closes the socket.
 */
export function answerClientError(error: Error & {code?: string}, socket: Duplex, inFlight: ServerResponse | undefined): void {
    if (error.code === "ECONNRESET" || !socket.writable || (inFlight != null && inFlight.headersSent)) {
        socket.destroy();
        return;
    }
    // Closed once the answer is flushed, or after a grace period if the client does not read it.
    const cut = setTimeout(() => socket.destroy(), unreadAnswerGraceMs).unref();
    socket.end(rawErrorResponse(clientErrorToApiError(error)), () => {
        clearTimeout(cut);
        socket.destroy();
    });
}

const unreadAnswerGraceMs = 2000;
