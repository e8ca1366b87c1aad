import {EngineError} from "../EngineError.js";
import type {GenerationActivity} from "../GenerationActivity.js";
import {ModelProcess} from "./ModelProcess.js";
import type {WarmBinding} from "./modelProcessProtocol.js";

/** How long nothing must generate before a new spare starts (its start takes about a second of one core). */
export const spareQuietMs = 1000;

/**
 * One model process started ahead, its native backend loaded, for the next model of the library to load: starting a
 * process and loading node-llama-cpp's backend took ~0.8 s of each on-demand load (`npm run bench:models`), which the
 * spare takes out of the request's wait. The next spare starts once nothing has generated for `spareQuietMs` (started
 * at once, it took the cores from the prompt of the request that had loaded the model: 0.6 s more to its first token).
 * It costs one idle process (the backend, no model: ~60–90 MB resident).
 */
export class SpareModelProcess {
    private spare: ModelProcess | undefined;
    private disposed = false;
    private timer: NodeJS.Timeout | undefined;
    /** Set while a replenish waits for the last generation to end (one subscription, however often it is asked). */
    private stopWaitingForIdle: (() => void) | undefined;
    /** Loads under way (each between `take` and `loadEnded`). */
    private loads = 0;

    public constructor(private readonly binding: WarmBinding, private readonly options: {
        /** What counts as busy: a spare does not start while any generation runs. */
        activity?: GenerationActivity,
        log?: (line: string) => void,
        quietMs?: number
    } = {}) {}

    /** The spare's process id; undefined while none runs. */
    public get pid(): number | undefined {
        return this.spare?.usable === true ? this.spare.pid : undefined;
    }

    /**
     * A load begins: the spare, if one runs, for it to adopt. No spare starts until every load has ended (`loadEnded`),
     * whether it took one or not: a process starting beside a load takes the cores it needs.
     */
    public take(): ModelProcess | undefined {
        this.loads++;
        const spare = this.spare;
        this.spare = undefined;
        return spare?.usable === true ? spare : undefined;
    }

    /** A load that `take` began has ended (loaded or failed): a new spare follows, once things are quiet. */
    public loadEnded(): void {
        this.loads = Math.max(0, this.loads - 1);
        this.replenish();
    }

    /** Starts a spare once nothing has loaded or generated for a while, unless one runs or is already due. */
    public replenish(): void {
        if (this.disposed || this.spare?.usable === true || this.timer != null || this.stopWaitingForIdle != null)
            return;
        this.timer = setTimeout(() => {
            this.timer = undefined;
            // A load under way calls `loadEnded` when it is done, which comes back here.
            if (this.loads > 0)
                return;
            if ((this.options.activity?.snapshot().active ?? 0) > 0) {
                // Busy: wait for the last generation to end, then for the quiet time again.
                this.stopWaitingForIdle = this.options.activity!.onChange((snapshot) => {
                    if (snapshot.active === 0) {
                        this.stopWaitingForIdle?.();
                        this.stopWaitingForIdle = undefined;
                        this.replenish();
                    }
                });
            } else
                this.startNow();
        }, this.options.quietMs ?? spareQuietMs);
        // A spare due never holds a headless run open.
        this.timer.unref();
    }

    /** Starts a spare at once unless one runs (the library's start, before any model loads). */
    public startNow(): void {
        if (this.disposed || this.spare?.usable === true)
            return;
        const spare: ModelProcess = new ModelProcess(this.binding, {
            onMessage: () => undefined,
            failure: () => new EngineError("not_ready", "The spare model process ended."),
            onExit: () => {
                if (this.spare === spare)
                    this.spare = undefined;
            },
            log: (line) => this.options.log?.(`spare model process: ${line}`)
        });
        this.spare = spare;
    }

    public async dispose(): Promise<void> {
        this.disposed = true;
        clearTimeout(this.timer);
        this.stopWaitingForIdle?.();
        const spare = this.spare;
        this.spare = undefined;
        spare?.kill("SIGTERM");
        await spare?.exited;
    }
}
