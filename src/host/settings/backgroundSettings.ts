import {defaultBackgroundJobLimits} from "../../responses/background/BackgroundJobs.js";
import {cliSetting, editorSetting} from "./setting.js";
import {integer} from "./settingKinds.js";

/** Background mode: admission, workers, deadlines, retention, event logs and their stream readers. */
export const backgroundSettings = {
    jobsMaxActive: editorSetting({
        kind: integer({min: 0}),
        cli: {
            flag: "responses-background-max-jobs", env: "LOCAL_RESPONSES_BACKGROUND_MAX_JOBS",
            help: "active background responses, 429 beyond (default 64; 0 disables background mode)"
        },
        editor: {
            key: "jobs.maxActive", default: defaultBackgroundJobLimits.maxActive, reaction: "rebuild", restricted: true, order: 50,
            description: "Background jobs queued or running at once (0 disables background mode)."
        },
        apply(config, value) {
            config.background.maxJobs = value;
        }
    }),
    jobsMaxActivePerKey: cliSetting({
        kind: integer({min: 1}),
        cli: {
            flag: "responses-background-max-jobs-per-key", env: "LOCAL_RESPONSES_BACKGROUND_MAX_JOBS_PER_KEY",
            help: "active background responses per API key, 429 beyond (default 4)"
        },
        apply(config, value) {
            config.background.maxJobsPerKey = value;
        }
    }),
    jobsWorkers: editorSetting({
        kind: integer({min: 1, max: 64}),
        cli: {
            flag: "responses-background-workers", env: "LOCAL_RESPONSES_BACKGROUND_WORKERS",
            help: "background responses generating at once (default 2)"
        },
        editor: {
            key: "jobs.workers", default: defaultBackgroundJobLimits.workers, reaction: "rebuild", restricted: true, order: 51,
            description: "Background jobs generating at once (the rest wait in the queue), leaving sequences to interactive requests."
        },
        apply(config, value) {
            config.background.workers = value;
        }
    }),
    jobsDeadlineSeconds: editorSetting({
        kind: integer({min: 1}),
        cli: {
            flag: "responses-background-deadline-secs", env: "LOCAL_RESPONSES_BACKGROUND_DEADLINE_SECS",
            help: "seconds from admission to the end of a job, then failed (default 300)"
        },
        editor: {
            key: "jobs.deadlineSeconds", default: defaultBackgroundJobLimits.deadlineSeconds, reaction: "rebuild", restricted: false,
            order: 52,
            description: "Seconds a background job may take, queue time included, before it fails."
        },
        apply(config, value) {
            config.background.deadlineSeconds = value;
        }
    }),
    jobsRetentionSeconds: cliSetting({
        kind: integer({min: 1}),
        cli: {
            flag: "responses-background-retention-secs", env: "LOCAL_RESPONSES_BACKGROUND_RETENTION_SECS",
            help: "seconds a finished job and its events are kept (default 900)"
        },
        apply(config, value) {
            config.background.retentionSeconds = value;
        }
    }),
    jobsRetained: cliSetting({
        kind: integer({min: 0}),
        cli: {
            flag: "responses-background-retained-jobs", env: "LOCAL_RESPONSES_BACKGROUND_RETAINED_JOBS",
            help: "finished job records kept at most (default 64)"
        },
        apply(config, value) {
            config.background.retainedJobs = value;
        }
    }),
    jobsInputMaxBytes: cliSetting({
        kind: integer({min: 1024}),
        cli: {
            flag: "responses-background-input-max-bytes", env: "LOCAL_RESPONSES_BACKGROUND_INPUT_MAX_BYTES",
            help: "input snapshot bytes per job, 413 beyond (default 2097152)"
        },
        apply(config, value) {
            config.background.inputMaxBytes = value;
        }
    }),
    jobsEventMaxCount: cliSetting({
        kind: integer({min: 16}),
        cli: {
            flag: "responses-background-event-max-count", env: "LOCAL_RESPONSES_BACKGROUND_EVENT_MAX_COUNT",
            help: "stream events retained per job (default 4096)"
        },
        apply(config, value) {
            config.background.eventMaxCount = value;
        }
    }),
    jobsEventMaxBytes: cliSetting({
        kind: integer({min: 4096}),
        cli: {
            flag: "responses-background-event-max-bytes", env: "LOCAL_RESPONSES_BACKGROUND_EVENT_MAX_BYTES",
            help: "stream event bytes retained per job (default 2097152)"
        },
        apply(config, value) {
            config.background.eventMaxBytes = value;
        }
    }),
    jobsStreamReaders: cliSetting({
        kind: integer({min: 1}),
        cli: {
            flag: "responses-background-stream-readers", env: "LOCAL_RESPONSES_BACKGROUND_STREAM_READERS",
            help: "background stream readers at once, 429 beyond (default 32)"
        },
        apply(config, value) {
            config.background.streamReaders = value;
        }
    }),
    jobsStreamReadersPerKey: cliSetting({
        kind: integer({min: 1}),
        cli: {
            flag: "responses-background-stream-readers-per-key", env: "LOCAL_RESPONSES_BACKGROUND_STREAM_READERS_PER_KEY",
            help: "background stream readers per API key (default 8)"
        },
        apply(config, value) {
            config.background.streamReadersPerKey = value;
        }
    }),
    jobsStreamWriteTimeoutSeconds: cliSetting({
        kind: integer({min: 1}),
        cli: {
            flag: "responses-background-stream-write-timeout-secs", env: "LOCAL_RESPONSES_BACKGROUND_STREAM_WRITE_TIMEOUT_SECS",
            help: "seconds a slow background stream socket may stay unwritable (default 5)"
        },
        apply(config, value) {
            config.background.streamWriteTimeoutSeconds = value;
        }
    })
};
