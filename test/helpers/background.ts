import {setTimeout as delay} from "node:timers/promises";
import {defaultConfig, type BackgroundSettings} from "../../src/host/config.js";
import type {TestServer} from "./testServer.js";

export type SseEvent = {type: string, sequence_number: number, [key: string]: any};

/** Background settings: the defaults with a few overridden. */
export function backgroundSettings(overrides: Partial<BackgroundSettings> = {}): BackgroundSettings {
    return {...defaultConfig().background, ...overrides};
}

/** A request body that generates for seconds on the tiny model (this seed does not stop early), to cancel mid-way. */
export function longGeneration(extra: Record<string, unknown> = {}): Record<string, unknown> {
    return {model: "m", input: "Tell me a long story.", max_output_tokens: 3800, temperature: 1, seed: 3, ...extra};
}

/**
 * A request body that generates until `max_output_tokens` or the context's end on any processor: its structured
 * output (a thousand strings of a thousand characters) cannot be finished, so the grammar allows no end of turn
 * before. A seed cannot promise that, as sampled text follows the processor's code paths. Structured output is
 * validated before it is published, so no deltas stream: this holds a sequence, it does not feed a reader. On the
 * synthetic full-size model it holds it for ~14 s here (2,048-token context), long enough for margins of seconds.
 */
export function unendingGeneration(extra: Record<string, unknown> = {}): Record<string, unknown> {
    return {...longGeneration(), text: {format: unfinishableFormat}, ...extra};
}

const unfinishableFormat = {
    type: "json_schema", name: "pages", strict: true,
    schema: {
        type: "object", additionalProperties: false, required: ["pages"],
        properties: {pages: {type: "array", minItems: 1000, items: {type: "string", minLength: 1000}}}
    }
};

/** Reads SSE events from a fetch response as they arrive; stop early by breaking out of the loop. */
export async function* sseEvents(response: Response): AsyncGenerator<SseEvent> {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, {stream: true});
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const data = block.split("\n").find((line) => line.startsWith("data: "));
            if (data != null)
                yield JSON.parse(data.slice(6));
        }
    }
}

/** Polls a response until `done` says so (state, not time: the limit only stops a hung test). */
export async function pollUntil(server: TestServer, id: string, done: (response: any) => boolean, apiKey = server.apiKey): Promise<any> {
    for (let attempt = 0; attempt < 3000; attempt++) {
        const response = await (await server.fetch(`/v1/responses/${id}`, {headers: {authorization: `Bearer ${apiKey}`}})).json();
        if (done(response))
            return response;
        await delay(20);
    }
    throw new Error(`response ${id} never reached the expected state`);
}

export const isTerminal = (response: {status?: string | null}) => !["queued", "in_progress"].includes(response.status ?? "");
