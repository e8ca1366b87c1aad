import {maxJsonNesting} from "../../responses/jsonNesting.js";

/**
 * The most JSON objects and arrays one body may hold. Parsing is synchronous on the event loop every key shares:
 * 200,000 small messages (6 MB) took 67–150 ms in `JSON.parse` alone. 100,000 containers parse in ~40 ms and hold far
 * more than the largest request the conversation bounds allow (`schemas/shapeBounds.ts`: 4,096 entries), and more
 * than the 50,000 levels a deep-nesting body may reach before the nesting check answers it with its own 400.
 */
export const maxJsonContainers = 100_000;


/**
 * Counts the objects and arrays of a raw JSON body (the `{` and `[` outside strings), stopping past `limit`. A byte
 * loop, ~1 ns a byte: a 6 MB body is refused in a few ms, before `JSON.parse` spends 100 on it. Invalid JSON is
 * counted all the same; the parser refuses it afterwards.
 */
export function countJsonContainers(body: Uint8Array, limit: number = maxJsonContainers): number {
    // Fewer bytes than the limit cannot hold more containers than it.
    if (body.length <= limit)
        return 0;
    let containers = 0;
    let depth = 0;
    let inString = false;
    for (let index = 0; index < body.length; index++) {
        const byte = body[index];
        if (inString) {
            if (byte === 0x5c) // a backslash: the next byte is escaped
                index++;
            else if (byte === 0x22)
                inString = false;
        } else if (byte === 0x22) {
            inString = true;
        } else if (byte === 0x7b || byte === 0x5b) {
            // A body nested past the nesting limit is the nesting check's to refuse, with its 400 naming the parameter.
            if (++depth > maxJsonNesting)
                return 0;
            if (++containers > limit)
                return containers;
        } else if (byte === 0x7d || byte === 0x5d) {
            depth--;
        }
    }
    return containers;
}
