import type {Item, LoggedEvent, ResponseObject, ResponseStatus} from "../../protocol/wire.js";
import type {ResponseTimings} from "../../protocol/timings.js";
import type {GenerationOutcome, PreparedResponse} from "../pipeline/preparedResponse.js";
import type {JobEventLog} from "./JobEventLog.js";

/**
 * A job's record of its response: its owner, the response object generation fills in, the history it answers and
 * the timings generation measured. A submitted job's payload starts as its `PreparedResponse` (whose object the run
 * fills in) and takes the run's history and timings when it finishes; a job restored from a journal has only these fields.
 */
export type JobPayload = {
    readonly owner: string, readonly response: ResponseObject, readonly history: readonly Item[], readonly timings?: ResponseTimings
};

/** Runs one prepared response to its end (admit, then run), publishing its events through `sink`; rejects when `signal` aborted it. */
export type JobRunner = (prepared: PreparedResponse, sink: (event: LoggedEvent) => void, signal: AbortSignal) => Promise<GenerationOutcome>;

export type JobPhase = "queued" | "running" | "finished";
export type JobStopReason = "cancel" | "deadline" | "shutdown";

export type BackgroundJob = {
    readonly id: string,
    readonly owner: string,
    /** Replaced once, by the run's outcome (its history and timings), when the job finishes. */
    payload: JobPayload,
    readonly log: JobEventLog,
    readonly bytes: number,
    phase: JobPhase,
    stopReason: JobStopReason | null,
    finishedAt: number | null,
    readonly controller: AbortController,
    readonly settled: Promise<void>,
    settle: () => void,
    cancelDeadline: () => void
};

/** The statuses of a job that has not ended: a poll then sees no output and zero usage. */
export const activeStatuses: ReadonlySet<ResponseStatus> = new Set<ResponseStatus>(["queued", "in_progress"]);
