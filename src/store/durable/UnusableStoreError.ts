/**
 * What the store holds cannot be used (corrupt, foreign, from a newer schema, a file where its folder should be): only
 * this moves the store aside for an empty one. Raised by the store's own checks, or made of LevelDB's corruption and
 * decoding errors.
 */
export class UnusableStoreError extends Error {
    public constructor(message: string) {
        super(message);
        this.name = "UnusableStoreError";
    }
}
