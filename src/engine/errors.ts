/** Engine failures with a meaning the layers above map to API errors. */
export class EngineError extends Error {
    public constructor(
        public readonly kind: "not_ready" | "queue_full" | "context_overflow" | "aborted" | "load_failed",
        message: string
    ) {
        super(message);
        this.name = "EngineError";
    }
}
