import type {
    InspectorState, JobEventView, PersistedViewState, ResponseDetail, ToWebview
} from "../src/vscode/inspector/shared/inspectorProtocol.js";
import {filterResponses, modelFilter} from "../src/vscode/inspector/shared/responseSummary.js";
import {dropdown, setTabCount, tabs, textField, type ValueField} from "./components/ui.js";
import {el, replaceChildren} from "./dom.js";
import {vscodeApi} from "./vscodeApi.js";
import {detailView} from "./views/detailView.js";
import {plainStatus} from "./views/format.js";
import {jobEventsList, jobsTable} from "./views/jobsView.js";
import {responsesTable} from "./views/responsesView.js";
import {TimingChart} from "./views/timingChart.js";

const statusChoices = ["", "completed", "incomplete", "failed", "cancelled", "in_progress", "queued"]
    .map((value) => ({value, label: value === "" ? "Any status" : value}));
const noFilter: PersistedViewState["filter"] = {search: "", status: "", model: ""};

/**
 * The inspector page. Everything it shows arrives as messages from the extension; what a person chose
 * (tab, filter, selection) is kept with setState so the panel comes back as it was when shown again.
 */
export class InspectorApp {
    private state: InspectorState = {status: {text: "", tooltip: ""}, responses: [], jobs: null, timings: []};
    private view: PersistedViewState;
    private detail: {id: string, detail: ResponseDetail | null} | null = null;
    private jobEvents: {id: string, events: JobEventView[]} | null = null;
    private readonly statusLine = el("div", {className: "status-line", "data-testid": "status"});
    private readonly responsesList = el("div", {className: "list"});
    private readonly detailPane = el("div", {className: "detail-pane"});
    private readonly jobsList = el("div", {className: "list"});
    private readonly jobEventsPane = el("div", {className: "events-pane"});
    private readonly chart = new TimingChart();
    private panels: HTMLElement | undefined;
    private filterFields: {search: ValueField, status: ValueField} | undefined;
    /** Where the model filter goes once the list holds more than one model; rebuilt only when the models change. */
    private readonly modelFilterHolder = el("span", {className: "model-filter"});
    private modelFilterKey: string | null = null;
    private modelField: ValueField | null = null;

    public constructor(private readonly root: HTMLElement) {
        const saved = vscodeApi.getState();
        // A state saved before the model filter existed has none: every filter field falls back to "any".
        this.view = saved != null ? {...saved, filter: {...noFilter, ...saved.filter}}
            : {filter: noFilter, selectedResponse: null, selectedJob: null, tab: "responses"};
    }

    public start(): void {
        const search = textField({label: "Search stored responses", placeholder: "Search id, model, text, metadata",
            value: this.view.filter.search, testId: "search", onInput: (search) => {
                this.saveView({filter: {...this.view.filter, search}});
                this.renderResponses();
            }});
        const status = dropdown({label: "Filter by status", choices: statusChoices, value: this.view.filter.status, testId: "status-filter",
            onChange: (status) => {
                this.saveView({filter: {...this.view.filter, status}});
                this.renderResponses();
            }});
        this.filterFields = {search, status};
        const filters = el("div", {className: "filters"}, search, status, this.modelFilterHolder);
        this.panels = tabs([
            {
                id: "responses", label: "Responses", count: 0,
                content: el("div", {className: "tab-body"}, this.chart.element, filters, this.responsesList, this.detailPane)
            },
            {id: "jobs", label: "Jobs", count: 0, content: el("div", {className: "tab-body"}, this.jobsList, this.jobEventsPane)}
        ], this.view.tab, (tab) => this.saveView({tab: tab as PersistedViewState["tab"]}));
        replaceChildren(this.root, this.statusLine, this.panels);
        this.root.dataset.state = "ready";
        window.addEventListener("message", (event: MessageEvent<ToWebview>) => this.onMessage(event.data));
        vscodeApi.postMessage({type: "ready"});
        if (this.view.selectedResponse != null)
            vscodeApi.postMessage({type: "openResponse", id: this.view.selectedResponse});
        if (this.view.selectedJob != null)
            vscodeApi.postMessage({type: "watchJob", id: this.view.selectedJob});
    }

    private onMessage(message: ToWebview): void {
        switch (message.type) {
            case "state":
                this.state = message.state;
                this.renderStatus();
                this.renderResponses();
                this.renderJobs();
                this.chart.update(message.state.timings);
                break;
            case "timings":
                this.chart.update(message.samples);
                break;
            case "status":
                this.state.status = message.status;
                this.renderStatus();
                break;
            case "responses":
                this.state.responses = message.responses;
                this.renderResponses();
                break;
            case "jobs":
                this.state.jobs = message.jobs;
                this.renderJobs();
                break;
            case "detail":
                if (message.id === this.view.selectedResponse) {
                    this.detail = {id: message.id, detail: message.detail};
                    this.renderDetail();
                }
                break;
            case "jobEvents":
                if (message.id !== this.view.selectedJob)
                    break;
                this.jobEvents = message.reset || this.jobEvents?.id !== message.id
                    ? {id: message.id, events: message.events}
                    : {id: message.id, events: [...this.jobEvents.events, ...message.events]};
                replaceChildren(this.jobEventsPane, jobEventsList(message.id, this.jobEvents.events));
                break;
            case "reveal":
                this.saveView({tab: "responses", filter: noFilter});
                // The fields show the filter that applies: a revealed response must not hide behind old text.
                if (this.filterFields != null) {
                    this.filterFields.search.value = "";
                    this.filterFields.status.value = "";
                }
                if (this.modelField != null)
                    this.modelField.value = "";
                this.panels?.setAttribute("activeid", "tab-responses");
                this.openResponse(message.id);
                this.renderResponses();
                break;
            case "revealJob":
                // The extension sends the job's events right after: the pane starts empty for them.
                this.saveView({tab: "jobs", selectedJob: message.id});
                this.jobEvents = null;
                this.panels?.setAttribute("activeid", "tab-jobs");
                this.renderJobs();
                break;
        }
    }

    private renderStatus(): void {
        this.statusLine.textContent = plainStatus(this.state.status.text);
        this.statusLine.title = this.state.status.tooltip;
    }

    private renderResponses(): void {
        this.renderModelFilter();
        const shown = filterResponses(this.state.responses, this.view.filter);
        replaceChildren(this.responsesList,
            el("p", {className: "count"}, `${shown.length} of ${this.state.responses.length} stored responses`),
            responsesTable(shown, this.view.selectedResponse, (id) => this.openResponse(id)));
        if (this.panels != null)
            setTabCount(this.panels, "responses", this.state.responses.length);
        // A response deleted elsewhere (or evicted) closes its detail.
        if (this.detail != null && this.detail.detail != null
            && !this.state.responses.some((response) => response.id === this.detail!.id)) {
            this.detail = {id: this.detail.id, detail: null};
            this.renderDetail();
        }
    }

    /** The model dropdown ("All models" first), shown while more than one model answered the stored responses. */
    private renderModelFilter(): void {
        const models = modelFilter(this.state.responses, this.view.filter.model);
        // Rebuilt only when the models listed change: a pick keeps the field (and its focus) as it is.
        const key = models.shown ? models.choices.map((choice) => choice.value).join("\n") : "";
        if (key === this.modelFilterKey)
            return;
        this.modelFilterKey = key;
        this.modelField = models.shown ? dropdown({
            label: "Filter by model", choices: models.choices, value: models.value, testId: "model-filter",
            onChange: (model) => {
                this.saveView({filter: {...this.view.filter, model}});
                this.renderResponses();
            }
        }) : null;
        replaceChildren(this.modelFilterHolder, this.modelField);
    }

    private renderJobs(): void {
        replaceChildren(this.jobsList, jobsTable(this.state.jobs, this.view.selectedJob, {
            onWatch: (id) => {
                this.saveView({selectedJob: id});
                this.jobEvents = null;
                vscodeApi.postMessage({type: "watchJob", id});
                this.renderJobs();
            },
            onCancel: (id) => vscodeApi.postMessage({type: "cancelJob", id})
        }));
        if (this.panels != null)
            setTabCount(this.panels, "jobs", this.state.jobs?.filter((job) => job.cancellable).length ?? 0);
    }

    private openResponse(id: string): void {
        this.saveView({selectedResponse: id});
        this.detail = null;
        replaceChildren(this.detailPane, el("p", {className: "empty"}, "Loading…"));
        vscodeApi.postMessage({type: "openResponse", id});
        this.responsesList.querySelectorAll("tr[data-response-id]")
            .forEach((row) => row.classList.toggle("selected", (row as HTMLElement).dataset.responseId === id));
    }

    private renderDetail(): void {
        if (this.detail == null) {
            replaceChildren(this.detailPane);
            return;
        }
        const {id} = this.detail;
        replaceChildren(this.detailPane, detailView(id, this.detail.detail, {
            onDelete: () => vscodeApi.postMessage({type: "deleteResponse", id}),
            onClose: () => {
                this.detail = null;
                this.saveView({selectedResponse: null});
                this.renderDetail();
                this.renderResponses();
            }
        }));
    }

    private saveView(change: Partial<PersistedViewState>): void {
        this.view = {...this.view, ...change};
        vscodeApi.setState(this.view);
    }
}
