import {nestingTooDeep} from "../protocol/errors.js";

/**
 * The deepest nesting a client's JSON may have (objects and arrays, the body itself being level 1). JSON.parse
 * copes with any depth, but what walks the value afterwards (schema rules, ajv, JSON.stringify, the grammar
 * builder, the store's byte count) recurses: bounded here once, at the boundary, none of them can overflow the
 * stack. Legitimate bodies stay far below it: a JSON schema at the schema rules' own depth limit nests about 50.
 */
export const maxJsonNesting = 128;

/** How many leading path segments name the offending parameter (`tools[0].parameters`, `text.format.schema`). */
export const paramSegments = 3;

/**
 * Refuses (400 `nesting_too_deep`) a parsed JSON value nested deeper than `maxDepth`, naming `param`, or else the
 * parameter of the body that holds the excess. The walk recurses at most `maxDepth` frames, whatever the value.
 */
export function checkJsonNesting(value: unknown, maxDepth = maxJsonNesting, param?: string): void {
    const path = pathBeyond(value, 1, maxDepth);
    if (path == null)
        return;
    param ??= paramOfPath(path.slice(0, paramSegments));
    throw nestingTooDeep(maxDepth, param === "" ? null : param);
}

/** The path to the first object or array below `maxDepth`, or undefined when there is none. */
function pathBeyond(value: unknown, depth: number, maxDepth: number): Array<string | number> | undefined {
    if (value === null || typeof value !== "object")
        return undefined;
    if (depth > maxDepth)
        return [];
    if (Array.isArray(value)) {
        for (let index = 0; index < value.length; index++) {
            const below = pathBeyond(value[index], depth + 1, maxDepth);
            if (below != null)
                return [index, ...below];
        }
        return undefined;
    }
    // for...in allocates no key array (JSON.parse makes plain objects whose keys are all own and enumerable).
    for (const key in value) {
        const below = pathBeyond((value as Record<string, unknown>)[key], depth + 1, maxDepth);
        if (below != null)
            return [key, ...below];
    }
    return undefined;
}

/** A JSON path as OpenAI names parameters: `input[0].content`, `text.format.schema`. */
export function paramOfPath(path: ReadonlyArray<string | number>): string {
    let param = "";
    for (const part of path) {
        if (typeof part === "number")
            param += `[${part}]`;
        else
            param += param === "" ? part : `.${part}`;
    }
    return param;
}
