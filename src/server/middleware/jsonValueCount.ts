import {maxJsonNesting} from "../../responses/jsonNesting.js";

/**
 * The most JSON objects and arrays one body may hold. Parsing is synchronous on the event loop every key shares:
 * 200,000 small messages (6 MB) took 67–150 ms in `JSON.parse` alone. 100,000 containers parse in ~40 ms and hold far
 * more than the largest request the conversation bounds allow (`schemas/shapeBounds.ts`: 4,096 entries), and more
 * than the 50,000 levels a deep-nesting body may reach before the nesting check answers it with its own 400.
 */
export const maxJsonContainers = 100_000;

const quote = 0x22;
const backslash = 0x5c;

/**
 * Counts the objects and arrays (the `{` and `[` outside strings) of a JSON text fed chunk by chunk as it arrives, so
 * the count costs each network chunk a little instead of the whole body at once. Outside strings a byte loop; a
 * string is crossed with the native `indexOf` to its closing quote (a 15 MB prompt costs ~1 ms). Invalid JSON is
 * counted all the same; the parser refuses it afterwards.
 */
export class JsonContainerCounter {
    /** Objects and arrays seen so far. */
    containers = 0;
    /** Set once an opening bracket lies deeper than the nesting limit: the body is refused there, never parsed. */
    tooDeep = false;
    private depth = 0;
    private inString = false;
    /** Backslashes that ended the previous chunk inside a string: they escape or not the next chunk's first quote. */
    private trailingBackslashes = 0;

    /** Whether more than `limit` containers were seen. */
    exceeds(limit: number): boolean {
        return this.containers > limit;
    }

    feed(chunk: Buffer): void {
        let index = 0;
        if (this.inString) {
            index = this.stringEnd(chunk, 0);
            if (index < 0)
                return;
            index++;
        }
        for (; index < chunk.length; index++) {
            const byte = chunk[index];
            if (byte === quote) {
                this.inString = true;
                this.trailingBackslashes = 0;
                index = this.stringEnd(chunk, index + 1);
                if (index < 0)
                    return;
            } else if (byte === 0x7b || byte === 0x5b) {
                this.containers++;
                if (++this.depth > maxJsonNesting)
                    this.tooDeep = true;
            } else if (byte === 0x7d || byte === 0x5d) {
                this.depth--;
            }
        }
    }

    /**
     * The index of the quote that closes the open string, searching from `from`, or -1 when the chunk ends inside it.
     * A quote closes the string when the run of backslashes before it (carried over from the previous chunk if the run
     * starts the chunk) is even.
     */
    private stringEnd(chunk: Buffer, from: number): number {
        let candidate = chunk.indexOf(quote, from);
        while (candidate >= 0) {
            let run = 0;
            while (candidate - 1 - run >= from && chunk[candidate - 1 - run] === backslash)
                run++;
            if (candidate - run === from)
                run += this.trailingBackslashes;
            if (run % 2 === 0) {
                this.inString = false;
                return candidate;
            }
            candidate = chunk.indexOf(quote, candidate + 1);
        }
        let run = 0;
        while (run < chunk.length - from && chunk[chunk.length - 1 - run] === backslash)
            run++;
        this.trailingBackslashes = run === chunk.length - from ? this.trailingBackslashes + run : run;
        return -1;
    }
}
