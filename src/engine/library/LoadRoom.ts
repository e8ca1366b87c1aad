import {EngineError} from "../EngineError.js";
import type {LibraryEntry} from "./LibraryEntry.js";
import {ReleaseSignal} from "./ReleaseSignal.js";
import {planResidency, type ResidencyLimits} from "./residency.js";

export type LoadRoomOptions = {
    entries: () => Iterable<LibraryEntry>,
    limits: ResidencyLimits,
    /** Fires when a request releases its model: a load waiting for room looks again. */
    released: ReleaseSignal,
    unload: (entry: LibraryEntry) => Promise<void>,
    log?: (line: string) => void
};

/**
 * Room for a model about to load, within the library's count and memory budget (`planResidency`): the least recently
 * used idle models are unloaded; when only busy ones stand in the way, the load waits for those it needs gone to
 * finish their requests, and they take no new ones meanwhile (`drained`), so that steady traffic to a loaded model
 * cannot keep another's load waiting for ever. Loads take turns (the library's `loadTurn`): one `make` at a time.
 */
export class LoadRoom {
    /** The models the waiting load waits for. */
    private readonly waitedFor = new Set<string>();
    private readonly waitEnded = new ReleaseSignal();

    public constructor(private readonly options: LoadRoomOptions) {}

    /** Whether a load waits for this model's requests to end (a new request for it then waits: `drained`). */
    public draining(id: string): boolean {
        return this.waitedFor.has(id);
    }

    /** Resolves once no load waits for this model's requests; rejects with `aborted` when `signal` aborts first. */
    public async drained(id: string, signal?: AbortSignal): Promise<void> {
        while (this.waitedFor.has(id))
            await this.waitEnded.next(signal);
    }

    /** Unloads least recently used idle models until `entry` fits; waits while only busy ones stand in the way. */
    public async make(entry: LibraryEntry, neededBytes: number, signal?: AbortSignal): Promise<void> {
        try {
            await this.makeNow(entry, neededBytes, signal);
        } finally {
            if (this.waitedFor.size > 0) {
                this.waitedFor.clear();
                this.waitEnded.emit();
            }
        }
    }

    private async makeNow(entry: LibraryEntry, neededBytes: number, signal?: AbortSignal): Promise<void> {
        const {limits} = this.options;
        for (;;) {
            // Loads take turns, so another model "loading" now is queued behind this one and holds no memory yet:
            // counting it, as busy, made each of two loads wait for the other for ever. A model being unloaded still
            // holds its memory, but goes anyway: evicting it waits for that unload.
            const others = [...this.options.entries()].filter((other) => other !== entry && (other.loaded || other.unloading != null));
            const plan = planResidency(others.map((other) => ({
                id: other.id, bytes: other.estimatedBytes ?? 0, lastUsedAt: other.lastUsedAt ?? 0,
                busy: other.loaded && other.inFlight > 0
            })), neededBytes, limits);
            if (plan.kind === "never")
                throw new EngineError("model_memory_exceeded", `The model '${entry.id}' does not fit the memory budget.`,
                    {model: entry.id, memory: {requiredBytes: neededBytes, budgetBytes: limits.memoryBudgetBytes}});
            if (plan.kind === "fits") {
                // Every victim is marked unloading in this tick: a request for one of them arriving meanwhile waits
                // for its unload and loads it again, instead of taking a sequence the unload would abort.
                if (plan.evict.length > 0)
                    this.options.log?.(`models: unloading ${plan.evict.join(", ")} (least recently used) to load ${entry.id}`);
                await Promise.all(plan.evict.map((id) => this.options.unload(others.find((other) => other.id === id)!)));
                return;
            }
            for (const id of plan.drain)
                this.waitedFor.add(id);
            await this.options.released.next(signal);
        }
    }
}
