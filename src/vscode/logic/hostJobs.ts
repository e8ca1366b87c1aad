import type {LocalResponsesHost} from "../../host/LocalResponsesHost.js";
import type {InspectorJobs} from "./inspectorSources.js";

/**
 * The inspector's view of the host's background jobs, or null while the host has no job manager
 * (the panel and the Cancel Background Job command then say that background mode is not available).
 */
export function hostJobs(_host: LocalResponsesHost): InspectorJobs | null {
    return null;
}
