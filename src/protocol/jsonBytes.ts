/** Serialized JSON size, the one measure every store budget and limit counts in (not process memory). */
export function jsonBytes(value: unknown): number {
    return Buffer.byteLength(JSON.stringify(value));
}
