/** A JSON object: not null, not an array (what `typeof` alone calls an object). */
export function isObject(value: unknown): value is Record<string, unknown> {
    return typeof value === "object" && value != null && !Array.isArray(value);
}
