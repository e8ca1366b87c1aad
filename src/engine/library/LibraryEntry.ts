import type {HostedEngine} from "../HostedEngine.js";
import type {LibraryModel, LibraryModelStatus} from "../types.js";
import type {ModelFile} from "./modelFiles.js";

/** A library model as configured: its file, the names that select it and the settings it loads with. */
export type LibraryModelSpec = ModelFile & {
    aliases: readonly string[],
    /** Context size per sequence (the preset's, else the server's; null: the model's own, capped as `planContext` does). */
    contextSize: number | null,
    /** Parallel sequences (the preset's, else the server's; null: `planContext`'s). */
    parallel: number | null,
    /** The preset's chat format over detection (`--chat-wrapper`, `--chat-template` apply to a single model only). */
    chatWrapper?: string,
    chatTemplate?: string
};

/**
 * One model of the library at run time: its engine (created once, loaded and unloaded as the library decides), the
 * requests that hold or wait for it, when it was last used, what its loading costs in memory.
 */
export class LibraryEntry {
    /** Requests that hold one of its sequences, wait for one, or wait for it to load: it is not unloaded while any do. */
    public inFlight = 0;
    public lastUsedAt: number | null = null;
    /** Each caller's own last use (bounded by the number of API keys). */
    public readonly lastUsedBy = new Map<string, number>();
    /**
     * The keep-alive its last request asked for (Ollama's `keep_alive`, ms; Infinity: never idle-unloaded), which
     * stands until a later request asks for another; null: the operator's `--idle-unload-secs`.
     */
    public keepAliveMs: number | null = null;
    public estimatedBytes: number | null = null;
    /** The context size the estimate planned (the model's own, capped), shown before it is loaded. */
    public estimatedContextSize: number | null = null;
    public estimating: Promise<number> | null = null;
    public failure: string | null = null;
    /** Set while it loads (one load at a time), so that requests arriving meanwhile wait for the same load. */
    public loading: Promise<void> | null = null;
    /** Set while it unloads: a request arriving then waits for it and loads it again. */
    public unloading: Promise<void> | null = null;

    public constructor(public spec: LibraryModelSpec, public readonly engine: HostedEngine) {}

    public get id(): string {
        return this.spec.id;
    }

    public get loaded(): boolean {
        return this.engine.state === "ready" && this.unloading == null;
    }

    /** Whether it holds memory now or is about to: loaded, or loading. */
    public get resident(): boolean {
        return this.loaded || this.loading != null;
    }

    /** When it goes for idleness, its requests all ended (`defaultIdleMs`: the operator's); null: not for idleness. */
    private idleDeadline(defaultIdleMs: number | null): number | null {
        const keepAlive = this.keepAliveMs ?? defaultIdleMs;
        return keepAlive == null || keepAlive === Infinity || this.lastUsedAt == null ? null : this.lastUsedAt + keepAlive;
    }

    /** When it unloads for idleness as things stand: loaded with nothing in flight, and a keep-alive in force; else null. */
    public idleUnloadAt(defaultIdleMs: number | null): number | null {
        return this.loaded && this.inFlight === 0 ? this.idleDeadline(defaultIdleMs) : null;
    }

    public get status(): LibraryModelStatus {
        if (this.loading != null)
            return "loading";
        if (this.loaded)
            return "loaded";
        return this.failure != null ? "failed" : "unloaded";
    }

    /**
     * node-llama-cpp's estimate of its memory at its context (`estimateMemory`), read once and kept; a failed one makes
     * it `failed` with the reason (a file that is no GGUF we can read) and is tried again next time. `changed`: the
     * lists show it.
     */
    public estimate(estimateMemory: (spec: LibraryModelSpec) => Promise<{bytes: number, contextSize: number}>,
        changed: () => void): Promise<number> {
        this.estimating ??= estimateMemory(this.spec).then((estimate) => {
            this.estimatedBytes = estimate.bytes;
            this.estimatedContextSize = estimate.contextSize;
            // Only an estimate can have failed before the first one succeeds (a load waits for it).
            this.failure = null;
            changed();
            return estimate.bytes;
        }, (error: unknown) => {
            this.estimating = null;
            this.failure = (error as Error).message;
            changed();
            throw error;
        });
        return this.estimating;
    }

    /** Unloads its engine, one unload at a time (a second call waits for the first); a model not loaded stays as it is. */
    public async unload(changed: () => void): Promise<void> {
        if (this.unloading != null)
            return this.unloading;
        if (this.engine.state !== "ready")
            return;
        this.unloading = this.engine.unload().finally(() => {
            this.unloading = null;
            changed();
        });
        changed();
        return this.unloading;
    }

    /** A request for it ended at `now`; its keep_alive, when it gave one, is the model's from now; `usedBy`'s use is noted. */
    public requestEnded(now: number, keepAliveMs: number | null | undefined, usedBy: string | undefined): void {
        this.inFlight = Math.max(0, this.inFlight - 1);
        this.lastUsedAt = now;
        if (usedBy != null)
            this.lastUsedBy.set(usedBy, now);
        if (keepAliveMs !== undefined)
            this.keepAliveMs = keepAliveMs;
    }

    /** What `GET /v1/models` and the editor show; `defaultIdleMs`: the operator's idle time, for its keep-alive. */
    public view(defaultIdleMs: number | null): LibraryModel {
        const info = this.loaded ? this.engine.model : null;
        const keepAliveMs = this.keepAliveMs ?? defaultIdleMs;
        return {
            id: this.id, aliases: this.spec.aliases, path: this.spec.path, fileBytes: this.spec.bytes,
            quantization: this.spec.quantization, status: this.status, failure: this.failure, estimatedBytes: this.estimatedBytes,
            info, contextSize: info?.contextSize ?? this.spec.contextSize ?? this.estimatedContextSize, inFlight: this.inFlight,
            lastUsedAt: this.lastUsedAt,
            lastUsedBy: new Map(this.lastUsedBy),
            keepAliveMs: keepAliveMs === Infinity ? null : keepAliveMs,
            idleUnloadAt: this.idleUnloadAt(defaultIdleMs),
            stats: this.loaded ? this.engine.stats() : null
        };
    }
}
