/** An object or array open at the scan's position: how the next value inside it is named. */
type Frame = {array: boolean, index: number, key: string | null, expectingKey: boolean};

/**
 * The path, as far as its first `segments` parts, to the first object or array of a JSON text that lies deeper than
 * `maxDepth` (the text itself being level 1), or null when none does before the text ends. One pass over what a body
 * reader has received so far, run once when its counter saw the nesting pass the limit: the body is refused there,
 * never parsed, and the error still names the parameter (`tools[0].parameters`) as the check of a parsed body does.
 */
export function leadingPathPastDepth(text: string, maxDepth: number, segments: number): Array<string | number> | null {
    const frames: Frame[] = [];
    for (let index = 0; index < text.length; index++) {
        const code = text.charCodeAt(index);
        if (code === 0x22) {
            const end = stringEnd(text, index);
            if (end < 0)
                return null;
            const top = frames.at(-1);
            if (top != null && !top.array && top.expectingKey) {
                top.expectingKey = false;
                if (frames.length <= segments)
                    top.key = keyOf(text.slice(index, end + 1));
            }
            index = end;
        } else if (code === 0x7b || code === 0x5b) {
            frames.push({array: code === 0x5b, index: 0, key: null, expectingKey: code === 0x7b});
            if (frames.length > maxDepth)
                return frames.slice(0, Math.min(segments, frames.length - 1)).map((frame) => frame.array ? frame.index : frame.key ?? "");
        } else if (code === 0x7d || code === 0x5d) {
            frames.pop();
        } else if (code === 0x2c) {
            const top = frames.at(-1);
            if (top?.array === true)
                top.index++;
            else if (top != null)
                top.expectingKey = true;
        }
    }
    return null;
}

/** The index of the quote closing the string opened at `open`, or -1 when the text ends inside it. */
function stringEnd(text: string, open: number): number {
    let candidate = text.indexOf("\"", open + 1);
    while (candidate >= 0) {
        let backslashes = 0;
        while (candidate - 1 - backslashes > open && text.charCodeAt(candidate - 1 - backslashes) === 0x5c)
            backslashes++;
        if (backslashes % 2 === 0)
            return candidate;
        candidate = text.indexOf("\"", candidate + 1);
    }
    return -1;
}

function keyOf(quoted: string): string {
    try {
        return JSON.parse(quoted) as string;
    } catch {
        return "";
    }
}
