import type * as vscode from "vscode";
import type {LocalResponsesHost} from "../host/LocalResponsesHost.js";
import {Emitter} from "../protocol/Emitter.js";
import type {HostController} from "./controller/HostController.js";
import type {BackgroundJobsView} from "./inspector/BackgroundJobsView.js";
import {hostJobs} from "./inspector/hostJobs.js";
import type {CoreSources, InspectorJobs, InspectorResponses} from "./inspector/inspectorSources.js";
import {StoreResponses} from "./inspector/StoreResponses.js";
import type {TimingHistory} from "./inspector/TimingHistory.js";
import {EventLoopMonitor} from "./log/EventLoopMonitor.js";
import type {ServerStats} from "./status/ServerStats.js";

/**
 * The current core as the editor's parts read it: its response store and background jobs, replaced when the controller
 * creates a new core (settings that rebuild it), with the token stats, the timing history and the event-loop monitor
 * following it.
 */
export class HostSession implements CoreSources, vscode.Disposable {
    private responsesSource: InspectorResponses | undefined;
    private jobsSource: BackgroundJobsView | null = null;
    private forgetStates: (() => Promise<number>) | null = null;
    private monitor: EventLoopMonitor | undefined;
    private offTimings: (() => void) | undefined;
    private readonly hostChanges = new Emitter<void>();
    private markCreated: () => void = () => undefined;
    /** Settles when the first core exists: the inspector reads its store as soon as it is attached. */
    public readonly created: Promise<void>;

    public constructor(controller: HostController, private readonly stats: ServerStats, private readonly timings: TimingHistory,
        private readonly log: (line: string) => void) {
        this.created = new Promise((resolve) => this.markCreated = resolve);
        controller.onHost((host) => this.follow(host));
    }

    /** Whether the first core exists yet (the store and jobs are read from it). */
    public get hasHost(): boolean {
        return this.responsesSource != null;
    }

    /** The current core's store; throws before the first core exists. */
    public get responses(): InspectorResponses {
        if (this.responsesSource == null)
            throw new Error("The host is not created yet.");
        return this.responsesSource;
    }

    /** The current core's background jobs, or null when it runs none. */
    public get jobs(): InspectorJobs | null {
        return this.jobsSource;
    }

    /** Deletes every saved prompt state of the current core's prompt cache on disk; resolves with how many. */
    public forgetPromptStates(): Promise<number> {
        return this.forgetStates?.() ?? Promise.resolve(0);
    }

    /** Fires when a new core replaces the old one (its store and jobs are new). */
    public onHostChanged(listener: () => void): () => void {
        return this.hostChanges.on(listener);
    }

    private follow(host: LocalResponsesHost): void {
        this.stats.attach(host);
        this.offTimings?.();
        this.offTimings = host.engine.onGeneration((summary) => this.timings.record(summary));
        this.monitor?.dispose();
        this.monitor = new EventLoopMonitor(host.engine.activity, this.log);
        this.responsesSource = new StoreResponses(host.store);
        this.forgetStates = () => host.engine.forgetPromptStates();
        this.jobsSource?.dispose();
        this.jobsSource = hostJobs(host);
        this.hostChanges.emit();
        this.markCreated();
    }

    public dispose(): void {
        this.monitor?.dispose();
        this.jobsSource?.dispose();
        this.offTimings?.();
        this.hostChanges.clear();
    }
}
