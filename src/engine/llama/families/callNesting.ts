/**
 * The deepest a call read from a model's text may nest its arguments (objects and arrays, the arguments object being
 * level 1). What the arguments go on to recurses (JSON.stringify for the client, the template rendering them back
 * into the next prompt), and a generated answer can nest anything: a deeper call is left as the model's text. The
 * same bound as a client's JSON (maxJsonNesting, src/responses/jsonNesting.ts), declared again here because the
 * engine does not import the responses layer.
 */
export const maxCallNesting = 128;

/** Whether `value` holds an object or array below `maxDepth` levels; recurses at most `maxDepth` frames. */
export function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
    if (value === null || typeof value !== "object")
        return false;
    if (maxDepth === 0)
        return true;
    for (const item of Array.isArray(value) ? value : Object.values(value))
        if (nestsDeeperThan(item, maxDepth - 1))
            return true;
    return false;
}
