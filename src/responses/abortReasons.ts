import {EngineError} from "../engine/EngineError.js";

/** Why a generation was stopped before it finished (the `reason` label of the aborted-generations metric). */
export const abortKinds = ["client_disconnected", "cancelled", "deadline", "shutdown", "model_unloaded", "other"] as const;
export type AbortKind = typeof abortKinds[number];

/** The reason an abort signal carries, so whoever counts the abort knows who stopped the generation. */
export class GenerationAbort extends Error {
    public constructor(public readonly kind: Exclude<AbortKind, "other">, message: string) {
        super(message);
        this.name = "GenerationAbort";
    }
}

/** The kind of an abort signal's reason. */
export function abortKindOf(reason: unknown): AbortKind {
    if (reason instanceof GenerationAbort)
        return reason.kind;
    if (reason instanceof EngineError && reason.kind === "aborted")
        return "model_unloaded";
    return "other";
}
