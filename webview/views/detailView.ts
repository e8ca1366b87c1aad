import type {ResponseTimings} from "../../src/protocol/timings.js";
import type {ResponseDetail} from "../../src/vscode/inspector/shared/inspectorProtocol.js";
import {timingFacts} from "../../src/vscode/inspector/shared/timingFormat.js";
import {button} from "../components/ui.js";
import {el} from "../dom.js";
import {time} from "./format.js";
import {itemView, type TextFormat} from "./itemView.js";

type AnyItem = Record<string, unknown> & {type?: string, role?: string};

/** One stored response: summary, usage, input items, output items, metadata and the raw JSON. */
export function detailView(id: string, detail: ResponseDetail | null, actions: {onDelete: () => void, onClose: () => void}): HTMLElement {
    if (detail == null)
        return el("section", {className: "detail", "data-testid": "detail"},
            el("h2", {}, id),
            el("p", {className: "empty"}, "This response is no longer stored (deleted, expired or evicted)."),
            button("Close", actions.onClose));

    const response = detail.response;
    const format = response.text?.format;
    const metadata = Object.entries(response.metadata ?? {});
    return el("section", {className: "detail", "data-testid": "detail", "data-response-id": id},
        el("header", {className: "detail-header"},
            el("h2", {className: "mono"}, id),
            el("div", {className: "actions"},
                button("Delete", actions.onDelete, {appearance: "secondary", testId: "delete-response"}),
                button("Close", actions.onClose, {appearance: "secondary"}))),
        el("dl", {className: "facts"},
            ...fact("Status", response.status ?? ""),
            ...fact("Model", response.model ?? ""),
            ...fact("Created", response.created_at != null ? time(response.created_at) : ""),
            ...fact("Mode", response.background === true ? "background" : "foreground"),
            ...(response.previous_response_id != null ? fact("Previous", response.previous_response_id) : [])),
        problemBlock(response),
        section("Timings", timingsBlock(detail.timings)),
        section("Usage",
            response.usage == null ? el("p", {className: "empty"}, "No usage (not finished or failed).") : usageTable(response.usage)),
        section(`Input items (${detail.inputItems.length})`, itemsList(detail.inputItems as AnyItem[], "input-items", null)),
        section(`Output items (${detail.response.output.length})`, itemsList(detail.response.output as AnyItem[], "output-items", format)),
        section("Metadata", metadata.length === 0 ? el("p", {className: "empty"}, "None.")
            : el("dl", {className: "facts"}, ...metadata.flatMap(([key, value]) => fact(key, value)))),
        el("details", {className: "raw"}, el("summary", {}, "Raw JSON"),
            el("pre", {className: "mono", "data-testid": "raw-json"}, JSON.stringify(detail.response, null, 2))));
}

function section(title: string, content: HTMLElement): HTMLElement {
    return el("section", {className: "block"}, el("h3", {}, title), content);
}

function fact(name: string, value: string): HTMLElement[] {
    return [el("dt", {}, name), el("dd", {}, value)];
}

function usageTable(usage: Record<string, unknown>): HTMLElement {
    const details = (key: string, inner: string) => (usage[key] as Record<string, number> | undefined)?.[inner];
    return el("dl", {className: "facts", "data-testid": "usage"},
        ...fact("Input tokens", String(usage.input_tokens ?? "")),
        ...fact("Cached tokens", String(details("input_tokens_details", "cached_tokens") ?? 0)),
        ...fact("Output tokens", String(usage.output_tokens ?? "")),
        ...fact("Reasoning tokens", String(details("output_tokens_details", "reasoning_tokens") ?? 0)),
        ...fact("Total", String(usage.total_tokens ?? "")));
}

function itemsList(items: AnyItem[], testId: string, format: TextFormat): HTMLElement {
    if (items.length === 0)
        return el("p", {className: "empty"}, "None.");
    return el("ol", {className: "items", "data-testid": testId}, ...items.map((item) => itemView(item, format)));
}

function timingsBlock(timings: ResponseTimings | null): HTMLElement {
    if (timings == null)
        return el("p", {className: "empty"}, "No timings: it did not finish a generation here (failed or cancelled).");
    return el("dl", {className: "facts timings", "data-testid": "timings"},
        ...timingFacts(timings).flatMap(([name, value]) => fact(name, value)));
}

/** A failed response's error, or why it is incomplete: said first, where a person looks. */
function problemBlock(response: {status?: string, error?: {code?: string, message?: string} | null,
    incomplete_details?: {reason?: string} | null}): HTMLElement | null {
    if (response.error != null)
        return el("div", {className: "problem", role: "alert", "data-testid": "response-error"},
            el("strong", {}, `Error ${response.error.code ?? ""}`), el("div", {}, response.error.message ?? ""));
    if (response.status === "incomplete")
        return el("div", {className: "problem warning", role: "status"}, el("strong", {}, "Incomplete: "),
            response.incomplete_details?.reason ?? "unknown reason");
    return null;
}
