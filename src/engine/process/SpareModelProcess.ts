import {EngineError} from "../EngineError.js";
import {ModelProcess} from "./ModelProcess.js";
import type {WarmBinding} from "./modelProcessProtocol.js";

/**
 * One model process started ahead, its native backend loaded, for the next model of the library to load: starting a
 * process and loading node-llama-cpp's backend took ~1 s of each on-demand load (`npm run bench:models`), which the
 * spare takes out of the request's wait. A new spare starts once the one taken has loaded its model (so the two never
 * compete for the cores during a load). It costs one idle process (the backend, no model: ~60–90 MB resident).
 */
export class SpareModelProcess {
    private spare: ModelProcess | undefined;
    private disposed = false;

    public constructor(private readonly binding: WarmBinding, private readonly log?: (line: string) => void) {}

    /** The spare's process id; undefined while none runs. */
    public get pid(): number | undefined {
        return this.spare?.usable === true ? this.spare.pid : undefined;
    }

    /** The spare, if one runs; the caller adopts it. None is started here: `replenish` does, after the load. */
    public take(): ModelProcess | undefined {
        const spare = this.spare;
        this.spare = undefined;
        return spare?.usable === true ? spare : undefined;
    }

    /** Starts a spare unless one runs. */
    public replenish(): void {
        if (this.disposed || this.spare?.usable === true)
            return;
        const spare: ModelProcess = new ModelProcess(this.binding, {
            onMessage: () => undefined,
            failure: () => {
                if (this.spare === spare)
                    this.spare = undefined;
                return new EngineError("not_ready", "The spare model process ended.");
            },
            log: (line) => this.log?.(`spare model process: ${line}`)
        });
        this.spare = spare;
    }

    public async dispose(): Promise<void> {
        this.disposed = true;
        const spare = this.spare;
        this.spare = undefined;
        spare?.kill("SIGTERM");
        await spare?.exited;
    }
}
