import {invalidRequest} from "../../protocol/errors.js";

/**
 * How many conversation entries (Responses `input` items, Chat or Messages `messages`) one request may hold. JSON
 * Schema validation costs ~4 µs an entry on the event loop, which every key shares: 200,000 one-character messages
 * held it 842 ms. 4,096 entries are more than any context a local model runs can take (each costs tokens), and
 * their validation stays under ~20 ms.
 */
export const maxConversationEntries = 4096;

/** Content parts across all entries (text, images, tool results and the parts inside them): the same reasoning. */
export const maxContentParts = 16_384;

/**
 * Counts a request's entries and content parts and refuses, with OpenAI's `array_above_max_length`, a request past
 * the bounds, before any other validation: a count is a loop over arrays, far cheaper than a schema pass, so a
 * many-small-items body costs the other keys microseconds. Shapes are not checked here (the schema does that).
 */
export function checkShapeBounds(body: unknown, field: "input" | "messages"): void {
    if (typeof body !== "object" || body == null)
        return;
    const entries = (body as Record<string, unknown>)[field];
    if (!Array.isArray(entries))
        return;
    if (entries.length > maxConversationEntries)
        throw tooLong(`'${field}'`, field, maxConversationEntries, entries.length);
    let parts = 0;
    for (const entry of entries as unknown[]) {
        parts += countParts(entry, 2);
        if (parts > maxContentParts)
            throw tooLong(`content parts across '${field}'`, field, maxContentParts, parts);
    }
}

/** The parts of an entry's `content` (and of `output`, a tool result's), `depth` levels down: tool results nest once. */
function countParts(entry: unknown, depth: number): number {
    if (typeof entry !== "object" || entry == null || depth === 0)
        return 0;
    let parts = 0;
    for (const key of ["content", "output"]) {
        const list = (entry as Record<string, unknown>)[key];
        if (Array.isArray(list)) {
            parts += list.length;
            for (const part of list as unknown[])
                parts += countParts(part, depth - 1);
        }
    }
    return parts;
}

function tooLong(what: string, param: string, limit: number, length: number) {
    const message = `Invalid ${what}: array too long. Expected at most ${limit}, but got ${length}.`;
    return invalidRequest(message, param, "array_above_max_length");
}
