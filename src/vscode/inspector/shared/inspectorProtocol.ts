import type {ResponseTimings} from "../../../protocol/timings.js";
import type {Item, ResponseObject} from "../../../protocol/wire.js";

/**
 * The messages between the extension and the inspector webview, in both directions. Shared by both bundles
 * so that the two sides cannot drift apart; plain JSON only (postMessage structured-clones it).
 */

/** One row of the responses list. */
export type ResponseSummary = {
    id: string,
    createdAt: number,
    status: string,
    /** The model that answered (the response's `model`: with a library, the model its request named, an alias resolved). */
    model: string,
    inputTokens: number | null,
    outputTokens: number | null,
    background: boolean,
    /** The first characters of the output text, for search and a glance. */
    preview: string,
    metadata: Record<string, string>
};

/** A stored response in full: the response object and the input history it was generated from. */
export type ResponseDetail = {
    response: ResponseObject,
    inputItems: Item[],
    /** Where its time went; null when it did not finish a generation here (failed, cancelled). */
    timings: ResponseTimings | null
};

/** One finished generation, a point of the inspector's live chart. */
export type TimingSample = {
    /** Epoch milliseconds when it finished. */
    at: number,
    timeToFirstTokenMs: number | null,
    outputTokensPerSecond: number | null,
    outputTokens: number,
    /** Its prompt's tokens, and how many of them were read from the cache instead of evaluated (the usage's cached tokens). */
    inputTokens: number,
    cachedTokens: number,
    /** The model that generated it where the engine serves several (a model library, upstreams); null: the engine's one model. */
    model: string | null
};

export type JobSummary = {
    id: string,
    status: string,
    createdAt: number,
    /** The model its request named (resolved as for a stored response): the one generating it. */
    model: string,
    eventCount: number,
    /** Can the inspector cancel it now (queued or running)? */
    cancellable: boolean,
    /** Set once it finished generating. */
    timings: ResponseTimings | null
};

export type JobEventView = {sequence: number, type: string, summary: string};

export type InspectorState = {
    /** What the status bar says, repeated at the top of the panel. */
    status: {text: string, tooltip: string},
    responses: ResponseSummary[],
    /** null while the server has no background job support. */
    jobs: JobSummary[] | null,
    /** The chart's points of the last minutes. */
    timings: TimingSample[]
};

export type ToWebview =
    | {type: "state", state: InspectorState}
    | {type: "responses", responses: ResponseSummary[]}
    | {type: "jobs", jobs: JobSummary[] | null}
    | {type: "status", status: InspectorState["status"]}
    | {type: "timings", samples: TimingSample[]}
    | {type: "detail", id: string, detail: ResponseDetail | null}
    | {type: "jobEvents", id: string, events: JobEventView[], reset: boolean}
    /** Asks the panel to show a response (from the command palette's list). */
    | {type: "reveal", id: string}
    /** Asks the panel to show a background job's events (from the sidebar's Jobs view). */
    | {type: "revealJob", id: string};

export type FromWebview =
    | {type: "ready"}
    | {type: "openResponse", id: string}
    | {type: "deleteResponse", id: string}
    | {type: "watchJob", id: string | null}
    | {type: "cancelJob", id: string};

/** What the panel keeps across hide/show through the webview's getState/setState. */
export type PersistedViewState = {
    filter: ResponseFilter,
    selectedResponse: string | null,
    selectedJob: string | null,
    tab: "responses" | "jobs"
};

/** `status` and `model`: "" means any (the model filter is offered once the list holds more than one model). */
export type ResponseFilter = {search: string, status: string, model: string};

export function isFromWebview(message: unknown): message is FromWebview {
    if (typeof message !== "object" || message == null)
        return false;
    const {type, id} = message as {type?: unknown, id?: unknown};
    switch (type) {
        case "ready":
            return true;
        case "watchJob":
            return id === null || typeof id === "string";
        case "openResponse":
        case "deleteResponse":
        case "cancelJob":
            return typeof id === "string" && id !== "";
        default:
            return false;
    }
}
