import * as vscode from "vscode";
import {inspectorHtml} from "./inspectorHtml.js";
import {isFromWebview, type FromWebview, type InspectorState, type TimingSample, type ToWebview} from "./shared/inspectorProtocol.js";
import type {InspectorJobs, InspectorResponses} from "./inspectorSources.js";
import {Throttle} from "../util/Throttle.js";
import type {StatusView} from "../status/statusView.js";

export const inspectorViewType = "localResponses.inspector";

/** What the panel shows when it opens: a stored response, or a background job's events. */
export type InspectorTarget = {response: string} | {job: string};

/** What the panel reads; swapped when the host is rebuilt. */
export type InspectorData = {
    responses: () => InspectorResponses,
    jobs: () => InspectorJobs | null,
    status: () => StatusView | undefined,
    timings: () => TimingSample[],
    /** A stored response's detail was shown (the walkthrough's last step). */
    responseShown: () => void,
    /** Subscribes to everything the panel shows; returns the unsubscribe. */
    subscribe: (listeners: {responses: () => void, jobs: (jobId: string) => void, status: (view: StatusView) => void, sources: () => void,
        timings: () => void}) => () => void
};

/**
 * Hosts the inspector webview: serves its bundle under a strict CSP, pushes changes to it as messages (the
 * page never polls), and runs what it asks (open, delete, cancel). Only one panel exists at a time.
 */
export class InspectorPanel implements vscode.Disposable {
    private static current: InspectorPanel | undefined;
    private readonly disposables: vscode.Disposable[] = [];
    private readonly responsesThrottle = new Throttle(() => this.post({type: "responses", responses: this.data.responses().list()}), 200);
    private readonly jobsThrottle = new Throttle(() => this.post({type: "jobs", jobs: this.data.jobs()?.list() ?? null}), 200);
    private readonly timingsThrottle = new Throttle(() => this.post({type: "timings", samples: this.data.timings()}), 500);
    private readonly unsubscribe: () => void;
    private watchedJob: string | null = null;
    private watchedJobSent = -1;
    private ready = false;
    private disposed = false;
    private pendingReveal: InspectorTarget | null = null;

    public static show(extensionUri: vscode.Uri, data: InspectorData, target?: InspectorTarget): InspectorPanel {
        if (InspectorPanel.current != null) {
            InspectorPanel.current.panel.reveal();
        } else {
            const panel = vscode.window.createWebviewPanel(inspectorViewType, "Local Responses Inspector", vscode.ViewColumn.Active,
                InspectorPanel.options(extensionUri));
            InspectorPanel.current = new InspectorPanel(panel, extensionUri, data);
        }
        if (target != null)
            InspectorPanel.current.reveal(target);
        return InspectorPanel.current;
    }

    /** Re-attaches a panel VS Code restored after a reload (its page state comes back through getState). */
    public static restore(panel: vscode.WebviewPanel, extensionUri: vscode.Uri, data: InspectorData): void {
        panel.webview.options = InspectorPanel.options(extensionUri);
        InspectorPanel.current?.dispose();
        InspectorPanel.current = new InspectorPanel(panel, extensionUri, data);
    }

    private static options(extensionUri: vscode.Uri): vscode.WebviewPanelOptions & vscode.WebviewOptions {
        return {
            enableScripts: true,
            // The bundle and its stylesheet only: the page can load nothing else from disk.
            localResourceRoots: [vscode.Uri.joinPath(extensionUri, "dist", "webview"), vscode.Uri.joinPath(extensionUri, "media")]
        };
    }

    private constructor(private readonly panel: vscode.WebviewPanel, extensionUri: vscode.Uri, private readonly data: InspectorData) {
        const webview = panel.webview;
        panel.iconPath = vscode.Uri.joinPath(extensionUri, "media", "icon.png");
        webview.html = inspectorHtml({
            cspSource: webview.cspSource,
            scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, "dist", "webview", "main.js")).toString(),
            styleUris: ["uplot.min.css", "inspector.css"].map(
                (name) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, "media", name)).toString()
            )
        });
        this.disposables.push(
            webview.onDidReceiveMessage((message: unknown) => {
                if (isFromWebview(message))
                    void this.handle(message).catch(
                        (error: unknown) => vscode.window.showErrorMessage(`Inspector: ${(error as Error).message}`)
                    );
            }),
            panel.onDidDispose(() => this.dispose()),
            // A hidden panel's page is discarded (no retainContextWhenHidden); it sends `ready` again when shown.
            panel.onDidChangeViewState(() => {
                if (!panel.visible)
                    this.ready = false;
            })
        );
        this.unsubscribe = data.subscribe({
            responses: () => this.responsesThrottle.schedule(),
            jobs: (jobId) => {
                this.jobsThrottle.schedule();
                if (jobId === this.watchedJob)
                    this.sendJobEvents(false);
            },
            status: (view) => this.post({type: "status", status: {text: view.text, tooltip: view.tooltip}}),
            timings: () => this.timingsThrottle.schedule(),
            sources: () => {
                this.responsesThrottle.schedule();
                this.jobsThrottle.schedule();
            }
        });
    }

    public reveal(target: InspectorTarget): void {
        if (!this.ready) {
            this.pendingReveal = target;
            return;
        }
        if ("job" in target) {
            this.watchedJob = target.job;
            this.post({type: "revealJob", id: target.job});
            this.sendJobEvents(true);
        } else
            this.post({type: "reveal", id: target.response});
    }

    private async handle(message: FromWebview): Promise<void> {
        switch (message.type) {
            case "ready":
                this.ready = true;
                this.post({type: "state", state: this.state()});
                if (this.watchedJob != null)
                    this.sendJobEvents(true);
                if (this.pendingReveal != null) {
                    const target = this.pendingReveal;
                    this.pendingReveal = null;
                    this.reveal(target);
                }
                return;
            case "openResponse": {
                const detail = this.data.responses().detail(message.id);
                this.post({type: "detail", id: message.id, detail});
                if (detail != null)
                    this.data.responseShown();
                return;
            }
            case "deleteResponse": {
                const answer = await vscode.window.showWarningMessage(`Delete stored response ${message.id}?`, {modal: true}, "Delete");
                if (answer !== "Delete")
                    return;
                if (!this.data.responses().delete(message.id))
                    void vscode.window.showWarningMessage(`Response ${message.id} is no longer stored (deleted, expired or evicted).`);
                this.post({type: "detail", id: message.id, detail: null});
                return;
            }
            case "watchJob":
                this.watchedJob = message.id;
                this.sendJobEvents(true);
                return;
            case "cancelJob": {
                const jobs = this.data.jobs();
                if (jobs == null) {
                    void vscode.window.showWarningMessage("This server has no background jobs to cancel.");
                    return;
                }
                const cancelled = await jobs.cancel(message.id);
                void vscode.window.showInformationMessage(
                    cancelled ? `Background job ${message.id} cancelled.` : `Background job ${message.id} had already finished.`
                );
                this.jobsThrottle.schedule();
                return;
            }
        }
    }

    private state(): InspectorState {
        const view = this.data.status();
        return {
            status: {text: view?.text ?? "", tooltip: view?.tooltip ?? ""},
            responses: this.data.responses().list(),
            jobs: this.data.jobs()?.list() ?? null,
            timings: this.data.timings()
        };
    }

    /** Sends the watched job's events: all of them on `reset`, otherwise only those the page has not seen. */
    private sendJobEvents(reset: boolean): void {
        const id = this.watchedJob;
        const jobs = this.data.jobs();
        if (id == null || jobs == null)
            return;
        const events = jobs.events(id);
        if (reset)
            this.watchedJobSent = -1;
        const fresh = events.filter((event) => event.sequence > this.watchedJobSent);
        if (fresh.length === 0 && !reset)
            return;
        this.watchedJobSent = events.at(-1)?.sequence ?? this.watchedJobSent;
        this.post({type: "jobEvents", id, events: fresh, reset});
    }

    private post(message: ToWebview): void {
        if (this.ready)
            void this.panel.webview.postMessage(message);
    }

    public dispose(): void {
        if (this.disposed)
            return;
        this.disposed = true;
        if (InspectorPanel.current === this)
            InspectorPanel.current = undefined;
        this.unsubscribe();
        this.responsesThrottle.dispose();
        this.jobsThrottle.dispose();
        this.timingsThrottle.dispose();
        for (const disposable of this.disposables)
            disposable.dispose();
        this.panel.dispose();
    }
}
