/**
 * The properties every answer must have, whatever was asked: no 5xx (a documented 503 under load aside), every
 * error in OpenAI's shape with a 4xx, streams whose events parse and never fail with a server error.
 */

/** 503s the docs promise under load; anything else at 500 or above is a failure. */
const documentedOverload = new Set(["server_overloaded"]);
/**
 * 500s the docs promise: Chat Completions' answer to generated output that failed the strict validation the request
 * asked for (Responses answers a `failed` response there; Chat Completions has no such object).
 */
const documentedOutputFailures = new Set(["invalid_output", "invalid_tool_arguments"]);

/** Problems with an error answer: its status and its body. */
export function errorAnswerProblems(status: number, body: string): string[] {
    const problems: string[] = [];
    const parsed = parseJson(body);
    const error = isErrorBody(parsed) ? parsed.error : undefined;
    const documented = (status === 503 && documentedOverload.has(String(error?.code)))
        || (status === 500 && documentedOutputFailures.has(String(error?.code)));
    if (status >= 500 && !documented)
        problems.push(`${status}${error == null ? "" : ` ${String(error.code)}: ${clip(String(error.message))}`}`);
    if (error == null)
        problems.push(`${status} without OpenAI's error shape: ${body === "" ? "empty body" : clip(body)}`);
    return problems;
}

/** Problems with an SSE body: unparsable events, server errors mid-stream. */
export function sseProblems(body: string, onEvent: (event: any) => void): string[] {
    const problems: string[] = [];
    for (const block of body.split("\n\n")) {
        const data = block.split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trimStart()).join("\n");
        // Chat Completions closes its stream with `data: [DONE]`, which is no JSON.
        if (data === "" || data === "[DONE]")
            continue;
        const event = parseJson(data);
        if (event === undefined) {
            problems.push(`unparsable SSE data: ${clip(data)}`);
            continue;
        }
        onEvent(event);
        problems.push(...eventProblems(event));
    }
    return problems;
}

/** A streamed event (SSE or WebSocket) that reports a server error. */
export function eventProblems(event: any): string[] {
    if (event?.type === "error") {
        const status = typeof event.status === "number" ? event.status : undefined;
        const error = event.error ?? event;
        const shaped = typeof error?.message === "string" && typeof error?.type === "string" && "code" in error && "param" in error;
        const problems = shaped ? [] : [`error event without OpenAI's shape: ${clip(JSON.stringify(event))}`];
        if ((status != null && status >= 500 && !(status === 503 && documentedOverload.has(String(error?.code))))
            || error?.code === "server_error")
            problems.push(`error event ${status ?? ""} ${String(error?.code)}: ${clip(String(error?.message))}`);
        return problems;
    }
    if (event?.type === "response.failed" || event?.object === "response")
        return failedResponseProblems(event.response ?? event);
    // A Chat Completions stream's failure: a chunk that is only an error body.
    if (event?.type === undefined && event?.error !== undefined)
        return isErrorBody(event) ? (event.error.code === "server_error" ? [`error chunk server_error: ${clip(event.error.message)}`] : [])
            : [`error chunk without OpenAI's shape: ${clip(JSON.stringify(event))}`];
    return [];
}

function failedResponseProblems(response: any): string[] {
    return response?.status === "failed" && response?.error?.code === "server_error"
        ? [`response failed with server_error: ${clip(String(response.error.message))}`]
        : [];
}

export function isErrorBody(value: unknown): value is {error: {message: string, type: string, param: string | null, code: string | null}} {
    if (typeof value !== "object" || value == null || Object.keys(value).length !== 1)
        return false;
    const error = (value as {error?: any}).error;
    return typeof error === "object" && error != null
        && Object.keys(error).sort().join(",") === "code,message,param,type"
        && typeof error.message === "string" && typeof error.type === "string"
        && (error.param === null || typeof error.param === "string")
        && (error.code === null || typeof error.code === "string");
}

export function parseJson(text: string): unknown {
    try {
        return JSON.parse(text);
    } catch {
        return undefined;
    }
}

export function clip(text: string, length = 160): string {
    const flat = text.replace(/\s+/g, " ");
    return flat.length > length ? `${flat.slice(0, length)}…` : flat;
}
