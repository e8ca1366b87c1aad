import type {LocalResponsesHost} from "../../host/LocalResponsesHost.js";
import {BackgroundJobsView} from "./BackgroundJobsView.js";

/**
 * The inspector's view of the host's background jobs, or null when background mode is disabled
 * (its job limit is 0): the panel and Cancel Background Job… then say so.
 */
export function hostJobs(host: LocalResponsesHost): BackgroundJobsView | null {
    return host.jobs.enabled ? new BackgroundJobsView(host.jobs) : null;
}
