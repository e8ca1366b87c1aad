import {toApiError} from "../engineErrors.js";
import {streamErrorEvent} from "../wireShapes.js";
import type {ResponseObject} from "../../protocol/wire.js";
import {activeStatuses, type BackgroundJob} from "./backgroundJob.js";

/** How a job ended, as the counters and the inspector name it. */
export type JobOutcome = "completed" | "failed" | "cancelled";

/**
 * Reconciles a job's response with how its run ended and publishes the terminal event the runner did not: a job
 * stopped by cancel or shutdown before it finished is `cancelled`; one stopped by its deadline, one whose runner
 * threw, and one that ended still active is `failed` (with the reason); otherwise the response stands as the run left it.
 */
export function settleJobTerminalState(job: BackgroundJob, error: unknown, deadlineSeconds: number): JobOutcome {
    const response = job.payload.response;
    const stoppedEarly = job.stopReason != null && (error != null || activeStatuses.has(response.status));
    if (stoppedEarly && job.stopReason !== "deadline") {
        setTerminal(response, "cancelled", null);
        job.log.append(streamErrorEvent({code: "response_cancelled", message: "The response was cancelled."}));
        return "cancelled";
    }
    if (stoppedEarly || error != null || activeStatuses.has(response.status)) {
        const failure = job.stopReason === "deadline"
            ? {code: "job_timeout", message: `The background response did not finish within ${deadlineSeconds} s.`}
            : describe(error);
        setTerminal(response, "failed", failure);
        job.log.append({type: "response.failed", response: structuredClone(response)});
        return "failed";
    }
    return response.status === "failed" ? "failed" : "completed";
}

function setTerminal(response: ResponseObject, status: "cancelled" | "failed", error: {code: string, message: string} | null): void {
    response.status = status;
    response.output = [];
    response.usage = null;
    response.error = error;
    response.completed_at = null;
}

function describe(error: unknown): {code: string, message: string} {
    const apiError = toApiError(error);
    return {code: apiError.code ?? "server_error", message: apiError.message};
}
