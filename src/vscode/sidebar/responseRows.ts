import type {ResponseSummary} from "../inspector/shared/inspectorProtocol.js";
import type {SidebarRow} from "./SidebarRow.js";

/** Rows shown at most: the view is a glance at the latest; the inspector holds the rest. */
export const responseRowLimit = 50;

/** The Responses view: the most recent stored responses; Enter (or a click) opens one in the inspector. */
export function responseRows(responses: readonly ResponseSummary[], openCommand: string,
    formatTime: (seconds: number) => string): SidebarRow[] {
    return responses.slice(0, responseRowLimit).map((response) => ({
        id: `response:${response.id}`,
        label: response.preview !== "" ? response.preview.slice(0, 60) : response.id,
        description: `${response.status} · ${response.inputTokens ?? "?"}→${response.outputTokens ?? "?"} tokens `
            + `· ${formatTime(response.createdAt)}${response.background ? " · background" : ""}`,
        tooltip: `${response.id}\n${response.model} · ${response.status}\n${response.preview}`,
        icon: statusIcon(response.status),
        contextValue: "response",
        command: {command: openCommand, title: "Open in Inspector"},
        target: response.id
    }));
}

export function statusIcon(status: string): string {
    switch (status) {
        case "completed":
            return "pass";
        case "failed":
            return "error";
        case "cancelled":
            return "circle-slash";
        case "incomplete":
            return "warning";
        case "queued":
            return "clock";
        default:
            return "loading~spin";
    }
}
