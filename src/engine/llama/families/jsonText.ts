/**
 * Where the JSON object or array that `text` has at `at` ends (the index after its closing bracket), or undefined
 * where none starts there or it does not close. One pass that tracks string state and depth: finding the end costs
 * the object's length, never a parse per candidate closing bracket. Brackets are not matched by kind; the parse
 * that follows checks the rest.
 */
export function jsonEnd(text: string, at: number): number | undefined {
    if (text[at] !== "{" && text[at] !== "[")
        return undefined;
    let depth = 0;
    let inString = false;
    for (let index = at; index < text.length; index++) {
        const char = text[index];
        if (inString) {
            if (char === "\\")
                index++;
            else if (char === "\"")
                inString = false;
        } else if (char === "\"")
            inString = true;
        else if (char === "{" || char === "[")
            depth++;
        else if ((char === "}" || char === "]") && --depth === 0)
            return index + 1;
    }
    return undefined;
}

/** JSON.parse that does not throw: undefined where `text` is not JSON. */
export function parseJson(text: string): {value: unknown} | undefined {
    try {
        return {value: JSON.parse(text) as unknown};
    } catch {
        return undefined;
    }
}

/**
 * Part of a string's text as JSON string content (escaped, no quotes), such that the parts of a string written in
 * pieces add up to JSON.stringify's: a high surrogate at the end is held back (`length` says how much was taken)
 * unless the string ends there, as a pair is written as it is and a lone surrogate escaped.
 */
export function jsonStringPart(text: string, last: boolean): {json: string, length: number} {
    const code = text.charCodeAt(text.length - 1);
    const length = !last && code >= 0xd800 && code <= 0xdbff ? text.length - 1 : text.length;
    return {json: JSON.stringify(text.slice(0, length)).slice(1, -1), length};
}

/** The index of the first character at or after `at` that is not white space (`text.length` where none is). */
export function skipSpace(text: string, at: number): number {
    while (at < text.length && /\s/.test(text[at]!))
        at++;
    return at;
}
