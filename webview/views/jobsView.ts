import type {JobEventView, JobSummary} from "../../src/vscode/inspector/shared/inspectorProtocol.js";
import {button} from "../components/ui.js";
import {el} from "../dom.js";
import {formatDuration, formatPerSecond} from "../../src/vscode/inspector/shared/timingFormat.js";
import {time} from "./format.js";

/** Background jobs: status, event count, cancel; a row click follows its event stream. */
export function jobsTable(jobs: readonly JobSummary[] | null, selected: string | null,
    actions: {onWatch: (id: string) => void, onCancel: (id: string) => void}): HTMLElement {
    if (jobs == null)
        return el("p", {className: "empty", "data-testid": "jobs-unavailable"},
            "This server version runs no background jobs: requests with background: true are refused.");
    if (jobs.length === 0)
        return el("p", {className: "empty", "data-testid": "jobs-empty"},
            "No background jobs. Send a request with background: true to see one here.");
    return el("table", {className: "grid", "data-testid": "jobs-table"},
        el("thead", {}, el("tr", {}, ...["ID", "Created", "Status", "Model", "Events", "Queue wait", "TTFT", "Speed", "Actions"].map(
            (heading) => el("th", {}, heading)
        ))),
        el("tbody", {}, ...jobs.map((job) => el("tr", {
            className: job.id === selected ? "selected" : "",
            tabindex: 0,
            "data-job-id": job.id,
            onclick: () => actions.onWatch(job.id),
            onkeydown: (event: Event) => {
                if ((event as KeyboardEvent).key === "Enter")
                    actions.onWatch(job.id);
            }
        },
        el("td", {className: "mono"}, job.id),
        el("td", {}, time(job.createdAt)),
        el("td", {}, el("span", {className: `status status-${job.status}`, "data-testid": "job-status"}, job.status)),
        el("td", {}, job.model),
        el("td", {className: "num"}, String(job.eventCount)),
        el("td", {className: "num"}, formatDuration(job.timings?.queueWaitMs ?? null)),
        el("td", {className: "num"}, formatDuration(job.timings?.timeToFirstTokenMs ?? null)),
        el("td", {className: "num"}, formatPerSecond(job.timings?.outputTokensPerSecond ?? null)),
        el("td", {}, job.cancellable ? button("Cancel", () => actions.onCancel(job.id), {testId: "cancel-job"}) : "")))));
}

export function jobEventsList(id: string, events: readonly JobEventView[]): HTMLElement {
    return el("section", {className: "block", "data-testid": "job-events"},
        el("h3", {}, `Events of ${id} (${events.length})`),
        events.length === 0 ? el("p", {className: "empty"}, "No events yet.")
            : el("ol", {className: "events mono"}, ...events.map((event) => el("li", {value: event.sequence + 1},
                el("span", {className: "event-type"}, event.type), " ", event.summary))));
}
