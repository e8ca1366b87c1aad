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
