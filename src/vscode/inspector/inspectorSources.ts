import type {JobEventView, JobSummary, ResponseDetail, ResponseSummary} from "./shared/inspectorProtocol.js";

/**
 * Where the inspector reads stored responses from. Kept behind an interface so that the panel does not know
 * the store, and tests can drive it with a real store and no editor.
 */
export interface InspectorResponses {
    list(): ResponseSummary[];
    detail(id: string): ResponseDetail | null;
    delete(id: string): boolean;
    clear(): number;
    /** Fires after any change (put, delete, eviction, expiry, clear). */
    onChange(listener: () => void): () => void;
}

/**
 * Where the inspector reads background jobs from: the server's job manager, adapted. A host without
 * background support has none, and the panel says so.
 */
export interface InspectorJobs {
    list(): JobSummary[];
    /** The events a job has emitted so far, in order. */
    events(id: string): JobEventView[];
    /** Cancels a queued or running job; false when it is unknown or already finished. */
    cancel(id: string): Promise<boolean>;
    /** Fires with the job's id when it changes state or emits an event. */
    onChange(listener: (jobId: string) => void): () => void;
}

/**
 * The current core's stored responses and jobs as the editor's features read them. `HostSession` provides it and swaps
 * what is behind it when a new core replaces the old one; each feature takes the part it uses (`Pick`), so no feature
 * imports the session that is composed from them.
 */
export interface CoreSources {
    /** Whether the first core exists yet (the store and jobs are read from it). */
    readonly hasHost: boolean;
    /** The current core's store; throws before the first core exists. */
    readonly responses: InspectorResponses;
    /** The current core's background jobs, or null when it runs none. */
    readonly jobs: InspectorJobs | null;
    /** Deletes every saved prompt state of the current core's prompt cache on disk; resolves with how many. */
    forgetPromptStates(): Promise<number>;
    /** Fires when a new core replaces the old one (its store and jobs are new). */
    onHostChanged(listener: () => void): () => void;
}
