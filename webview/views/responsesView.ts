import type {ResponseSummary} from "../../src/vscode/inspector/shared/inspectorProtocol.js";
import {el} from "../dom.js";
import {time, tokens} from "./format.js";

/** The responses table; a row click opens the detail. */
export function responsesTable(responses: readonly ResponseSummary[], selected: string | null, onOpen: (id: string) => void): HTMLElement {
    if (responses.length === 0)
        return el("p", {className: "empty", "data-testid": "responses-empty"}, "No stored responses match.");
    return el("table", {className: "grid", "data-testid": "responses-table"},
        el("thead", {}, el("tr", {}, ...["ID", "Created", "Status", "Model", "In", "Out", "Mode"].map((heading) => el("th", {}, heading)))),
        el("tbody", {}, ...responses.map((response) => el("tr", {
            className: response.id === selected ? "selected" : "",
            tabindex: 0,
            "data-response-id": response.id,
            title: response.preview,
            onclick: () => onOpen(response.id),
            onkeydown: (event: Event) => {
                if ((event as KeyboardEvent).key === "Enter")
                    onOpen(response.id);
            }
        },
        el("td", {className: "mono"}, response.id),
        el("td", {}, time(response.createdAt)),
        el("td", {}, el("span", {className: `status status-${response.status}`}, response.status)),
        el("td", {}, response.model),
        el("td", {className: "num"}, tokens(response.inputTokens)),
        el("td", {className: "num"}, tokens(response.outputTokens)),
        el("td", {}, response.background ? "background" : "foreground")))));
}
