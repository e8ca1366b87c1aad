import type {JobSummary} from "../inspector/shared/inspectorProtocol.js";
import {statusIcon} from "./responseRows.js";
import type {SidebarRow} from "./SidebarRow.js";

/** The Jobs view: background jobs, live ones first; a queued or running one can be cancelled inline. */
export function jobRows(jobs: readonly JobSummary[] | null, openCommand: string): SidebarRow[] {
    if (jobs == null)
        return [{id: "jobs:disabled", label: "Background mode is off", description: "localResponses.jobs.maxActive is 0", icon: "info"}];
    const ordered = [...jobs].sort((a, b) => Number(b.cancellable) - Number(a.cancellable) || b.createdAt - a.createdAt);
    return ordered.map((job) => ({
        id: `job:${job.id}`,
        label: job.id,
        description: `${job.status} · ${job.model} · ${job.eventCount} events`,
        tooltip: `${job.id}\n${job.status}${job.cancellable ? " (Cancel Job stops it)" : ""}`,
        icon: statusIcon(job.status),
        contextValue: job.cancellable ? "job.active" : "job.finished",
        command: {command: openCommand, title: "Open in Inspector"},
        target: job.id
    }));
}
