import type {CoreSources} from "./inspectorSources.js";
import type {StatusBar} from "../status/StatusBar.js";
import type {FirstRunEvent} from "../firstRun/FirstRunProgress.js";
import type {InspectorData} from "./InspectorPanel.js";
import type {TimingHistory} from "./TimingHistory.js";

/**
 * What the inspector shows, read from the current core: when the core is replaced, the panel's store and job
 * subscriptions move to the new one and it is told to reload (`sources`).
 */
export function sessionInspectorData(session: Pick<CoreSources, "responses" | "jobs" | "onHostChanged">, statusBar: StatusBar,
    timings: TimingHistory, firstRun: {record(event: FirstRunEvent): void}): InspectorData {
    return {
        responses: () => session.responses,
        jobs: () => session.jobs,
        status: () => statusBar.view,
        timings: () => timings.list(),
        responseShown: () => firstRun.record("responseSeen"),
        subscribe: (listeners) => {
            let offSources: (() => void)[] = [];
            const wire = () => {
                for (const off of offSources)
                    off();
                offSources = [session.responses.onChange(listeners.responses)];
                const jobs = session.jobs;
                if (jobs != null)
                    offSources.push(jobs.onChange(listeners.jobs));
            };
            wire();
            const offHost = session.onHostChanged(() => {
                wire();
                listeners.sources();
            });
            const offStatus = statusBar.onRender(listeners.status);
            const offTimings = timings.onChange(listeners.timings);
            return () => {
                offTimings();
                for (const off of offSources)
                    off();
                offHost();
                offStatus();
            };
        }
    };
}
