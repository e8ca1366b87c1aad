import * as vscode from "vscode";
import type {HostController} from "../controller/HostController.js";
import type {ServerStats} from "./ServerStats.js";
import {formatStatus, type StatusView} from "./statusView.js";
import {Throttle} from "../util/Throttle.js";
import {commandIds} from "../manifest/commandIds.js";
import {Emitter} from "../../protocol/Emitter.js";

/** Renders at most four times a second: the stats it shows change on every generated token. */
const renderIntervalMs = 250;

/** The one status bar item: model and state, live tokens/s, and the server's figures in the tooltip. */
export class StatusBar implements vscode.Disposable {
    private readonly item = vscode.window.createStatusBarItem("localResponses.status", vscode.StatusBarAlignment.Right, 100);
    private readonly throttle = new Throttle(() => this.render(), renderIntervalMs);
    private readonly renders = new Emitter<StatusView>();
    private readonly subscriptions: (() => void)[] = [];
    private ticker: NodeJS.Timeout | undefined;
    private last: StatusView | undefined;

    public constructor(
        private readonly controller: HostController,
        private readonly stats: ServerStats,
        private readonly activeJobs: () => number | null
    ) {
        this.item.name = "Local Responses";
        this.item.command = commandIds.openInspector;
        this.subscriptions.push(controller.onChange(() => this.throttle.schedule()), stats.onChange(() => this.throttle.schedule()));
        this.render();
        this.item.show();
    }

    /** The latest view, for the inspector's header. */
    public get view(): StatusView | undefined {
        return this.last;
    }

    public onRender(listener: (view: StatusView) => void): () => void {
        return this.renders.on(listener);
    }

    /** Asks for a render (the job count changed, for instance). */
    public refresh(): void {
        this.throttle.schedule();
    }

    private render(): void {
        const state = this.controller.state;
        const queueDepth = state.engine === "ready" ? this.controller.host.engine.stats().queueDepth : 0;
        const model = this.stats.statusModel(state, queueDepth, this.activeJobs());
        const view = formatStatus(model);
        this.item.text = view.text;
        this.item.tooltip = view.tooltip;
        this.item.backgroundColor = view.state === "failed" ? new vscode.ThemeColor("statusBarItem.errorBackground") : undefined;
        this.last = view;
        // While generating, the rate must decay to the truth even if no token arrives: re-render on a slow tick.
        if (view.state === "generating" && this.ticker == null)
            this.ticker = setInterval(() => this.throttle.schedule(), 1000);
        else if (view.state !== "generating" && this.ticker != null) {
            clearInterval(this.ticker);
            this.ticker = undefined;
        }
        this.renders.emit(view);
    }

    public dispose(): void {
        this.throttle.dispose();
        if (this.ticker != null)
            clearInterval(this.ticker);
        for (const unsubscribe of this.subscriptions)
            unsubscribe();
        this.item.dispose();
    }
}
