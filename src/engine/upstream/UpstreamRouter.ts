import {EngineError} from "../EngineError.js";
import type {Upstream} from "./Upstream.js";

/**
 * Picks the upstream for a request: the one its affinity key went to last (its prefix is in that server's
 * KV cache) while it is available and not overloaded, else the available one with the fewest outstanding
 * requests (ties taken in turn). "Overloaded" means more than `slack` requests above the least busy one.
 * Keys are remembered for the most recent `maxKeys` requests.
 */
export class UpstreamRouter {
    private readonly affinity = new Map<string, Upstream>();
    private turn = 0;

    public constructor(
        private readonly upstreams: readonly Upstream[],
        private readonly options: {slack?: number, maxKeys?: number} = {}
    ) {}

    /** The upstream to use, or null when none is available. `exclude` skips upstreams a request already failed on. */
    public pick(key: string | undefined, exclude: ReadonlySet<Upstream> = new Set()): Upstream | null {
        const candidates = this.upstreams.filter((upstream) => upstream.available && !exclude.has(upstream));
        if (candidates.length === 0)
            return null;
        // Ties rotate, so requests that arrive one after another (each done before the next) still spread.
        const start = this.turn++ % candidates.length;
        const rotated = [...candidates.slice(start), ...candidates.slice(0, start)];
        const least = rotated.reduce((best, upstream) => (upstream.outstanding < best.outstanding ? upstream : best));
        if (key == null)
            return least;
        const held = this.affinity.get(key);
        const slack = this.options.slack ?? 2;
        const chosen = held != null && candidates.includes(held) && held.outstanding <= least.outstanding + slack ? held : least;
        this.remember(key, chosen);
        return chosen;
    }

    /**
     * `pick`, or the reason none can take the request: `upstream_busy` (429 when every waiting upstream said 429, else
     * 503) with the shortest Retry-After left, or `upstream_unavailable` with each upstream's last error.
     */
    public pickOrThrow(key: string): Upstream {
        const upstream = this.pick(key);
        if (upstream != null)
            return upstream;
        const busy = this.upstreams.filter((candidate) => candidate.state !== "down" && candidate.busyUntil > Date.now());
        if (busy.length > 0) {
            const wait = Math.max(1, Math.ceil((Math.min(...busy.map((candidate) => candidate.busyUntil)) - Date.now()) / 1000));
            const status = busy.every((candidate) => candidate.busyStatus === 429) ? 429 : 503;
            throw new EngineError("upstream_busy", `Every upstream asked to wait (${status}); retry in ${wait} s.`,
                {status, retryAfterSeconds: wait});
        }
        const reasons = this.upstreams.map((candidate) => `${candidate.label}: ${candidate.lastError ?? "down"}`).join("; ");
        throw new EngineError("upstream_unavailable", `No upstream is reachable (${reasons}).`);
    }

    /** The upstream `key` went to last, if it is remembered. */
    public lastUpstreamOf(key: string): Upstream | undefined {
        return this.affinity.get(key);
    }

    private remember(key: string, upstream: Upstream): void {
        this.affinity.delete(key);
        this.affinity.set(key, upstream);
        const max = this.options.maxKeys ?? 10_000;
        if (this.affinity.size > max)
            this.affinity.delete(this.affinity.keys().next().value!);
    }
}
