import path from "node:path";
import {sweepPromptStates} from "../engine/llama/runtime/promptStateFolder.js";

export type PromptStateSweeperOptions = {
    /** The prompt cache's folder (`prompt-states/` in the data folder), every model's states below it. */
    folder: string,
    ttlSeconds: number,
    maxBytes: number,
    /** The folders of the models served now: they stay when empty; the empty folders of any other model go. */
    servedFolders: () => readonly string[],
    log?: (line: string) => void
};

/** The longest a state outlives its TTL, and how often the byte budget is checked with no TTL. */
const longestSweepIntervalMs = 60_000;

/**
 * Keeps the whole prompt cache on disk within its limits, on a timer, whatever is loaded: the caches keep them only
 * when they open or save, so the states of a model unloaded, removed from the library or no longer served (another
 * `--model`) stayed past the TTL, and each library model's folder took the whole byte budget. Here the TTL, the one
 * byte budget and the owner-only permissions hold for every folder below `prompt-states/`, every
 * min(TTL / 2, 60 s); folders of models no longer served go once empty.
 */
export class PromptStateSweeper {
    private timer: NodeJS.Timeout | null = null;
    private sweeping: Promise<void> | null = null;

    public constructor(private readonly options: PromptStateSweeperOptions) {}

    /** Sweeps now, then on the timer (which never keeps the process alive). */
    public start(): Promise<void> {
        if (this.timer == null) {
            const intervalMs = this.options.ttlSeconds > 0
                ? Math.min(this.options.ttlSeconds * 500, longestSweepIntervalMs) : longestSweepIntervalMs;
            this.timer = setInterval(() => void this.sweep(), intervalMs);
            this.timer.unref();
        }
        return this.sweep();
    }

    /** Stops the timer and waits for a sweep in progress (the data folder's lock is released next). */
    public async stop(): Promise<void> {
        if (this.timer != null)
            clearInterval(this.timer);
        this.timer = null;
        await this.sweeping;
    }

    /** One sweep (a sweep still running is waited for, not doubled). Never rejects: a failure is logged. */
    public sweep(): Promise<void> {
        this.sweeping ??= this.sweepOnce().finally(() => this.sweeping = null);
        return this.sweeping;
    }

    private async sweepOnce(): Promise<void> {
        const {folder, ttlSeconds, maxBytes, log} = this.options;
        try {
            const served = new Set(this.options.servedFolders());
            const swept = await sweepPromptStates(folder, {
                ttlSeconds, maxBytes, keepFolder: (candidate) => [...served].some((kept) => isWithin(candidate, kept))
            });
            const removed = [
                swept.expired > 0 && `${swept.expired} past the TTL`, swept.overBudget > 0 && `${swept.overBudget} over the byte budget`,
                swept.folders > 0 && `${swept.folders} empty folder${swept.folders === 1 ? "" : "s"} of models no longer served`
            ].filter((part) => part !== false);
            if (removed.length > 0)
                log?.(`prompt cache: deleted ${removed.join(", ")}`);
        } catch (error) {
            log?.(`prompt cache: sweeping ${folder} failed: ${error instanceof Error ? error.message : String(error)}`);
        }
    }
}

/** Whether `folder` is `kept` or one of the folders above it (`models/` stays while a model's folder in it is kept). */
function isWithin(folder: string, kept: string): boolean {
    const relative = path.relative(folder, kept);
    return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}
