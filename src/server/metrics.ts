import type {RequestHandler} from "express";
import {Counter, Gauge, Histogram, Registry} from "prom-client";
import type {ChatEngine, UpstreamStats} from "../engine/types.js";
import {abortKinds, type AbortKind} from "../responses/abortReasons.js";
import type {GenerationStats} from "../responses/pipeline/GenerationRunner.js";
import type {ApiProtocol} from "../responses/pipeline/preparedResponse.js";
import type {BackgroundJobs} from "../responses/background/BackgroundJobs.js";
import type {AppliedBounds} from "../store/BoundedStore.js";
import type {StoreCounters} from "../store/storeBounds.js";
import type {StreamReaderSlots} from "./StreamReaderSlots.js";
import {ModelMetrics} from "./modelMetrics.js";
import {PrefixReads, prefixReadFamilies, type PrefixReadTotals} from "./prefixReads.js";

/**
 * A store as status and metrics read it: its occupancy and cumulative counts, and the bounds it applies. The host
 * passes the stores; the server reads nothing else of them (the services hold them behind their ports).
 */
export type StoreOccupancy = {stats(): StoreCounters, readonly bounds: AppliedBounds};

export type MetricsSources = {
    engine: ChatEngine,
    store: StoreOccupancy,
    conversations: StoreOccupancy,
    jobs: BackgroundJobs,
    readers: StreamReaderSlots
};

const prefix = "local_responses_";

/**
 * The server's Prometheus figures, in a registry of its own (several hosts may live in one process).
 * Labels are routes, methods, statuses and state names: never keys, owners, ids or prompt text.
 */
export class ServerMetrics {
    public readonly registry = new Registry();
    private readonly requests: Counter<"method" | "route" | "status">;
    private readonly byModel: ModelMetrics;
    private readonly prefixReads: PrefixReads;
    private readonly latency: Histogram<"method" | "route">;
    private readonly tokens: Counter<"protocol" | "kind">;
    private readonly generations: Counter<"protocol" | "status">;
    private readonly abortedGenerations: Counter<"reason">;
    private readonly timeToFirstToken: Histogram<"protocol">;
    private readonly tokensPerSecond: Histogram<"protocol">;
    private readonly editorSuggestions: Counter<"outcome">;
    /** Finished generations and their tokens per API, for `/v1/status` (the counters above are for scrapers). */
    private readonly protocolTotals = new Map<ApiProtocol, ProtocolTotals>();
    /** The same per owner (API key): what a key is shown of the traffic when it may not see everyone's. */
    private readonly ownerTotals = new Map<string, Map<ApiProtocol, ProtocolTotals>>();

    public constructor(sources: MetricsSources) {
        const registers = [this.registry];
        this.requests = new Counter({
            name: `${prefix}http_requests_total`, help: "HTTP requests by method, route and status.",
            labelNames: ["method", "route", "status"], registers
        });
        this.latency = new Histogram({
            name: `${prefix}http_request_duration_seconds`, help: "HTTP request time (a stream counts until its last event).",
            labelNames: ["method", "route"], buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300], registers
        });
        // `protocol` (responses, chat_completions, messages, vscode_lm) tells the three APIs apart on their one generation path.
        this.tokens = new Counter({
            name: `${prefix}tokens_total`, help: "Tokens by API and kind: input (prompt), cached (prompt tokens reused), output.",
            labelNames: ["protocol", "kind"], registers
        });
        this.generations = new Counter({
            name: `${prefix}generations_total`, help: "Finished generations by API and response status.",
            labelNames: ["protocol", "status"], registers
        });
        this.abortedGenerations = new Counter({
            name: `${prefix}generations_aborted_total`, registers, labelNames: ["reason"],
            help: "Generations stopped before they finished, by reason: client_disconnected, cancelled, deadline, "
                + "shutdown, model_unloaded, other."
        });
        // Every reason is exported from the start (at 0), so a rate query sees each series before its first abort.
        for (const reason of abortKinds)
            this.abortedGenerations.inc({reason}, 0);
        this.timeToFirstToken = new Histogram({
            name: `${prefix}time_to_first_token_seconds`, help: "Time from the start of a generation to its first token, by API.",
            labelNames: ["protocol"], buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30], registers
        });
        this.tokensPerSecond = new Histogram({
            name: `${prefix}generation_tokens_per_second`, help: "Output tokens per second of each generation, by API.",
            labelNames: ["protocol"], buckets: [1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000], registers
        });
        this.editorSuggestions = new Counter({
            name: `${prefix}editor_suggestions_total`, labelNames: ["outcome"], registers,
            help: "The editor's code completion (in process): suggestions shown, empty, cancelled by typing, failed, and accepted."
        });

        const gauge = (name: string, help: string, read: () => number) => new Gauge({
            name: `${prefix}${name}`, help, registers,
            collect() {
                this.set(read());
            }
        });
        gauge("engine_ready", "1 when a model is loaded and ready.", () => (sources.engine.state === "ready" ? 1 : 0));
        gauge("queue_depth", "Requests waiting for a sequence.", () => sources.engine.stats().queueDepth);
        gauge("queue_limit", "Requests that may wait before new ones get 503.", () => sources.engine.stats().queueLimit);
        gauge("sequences_busy", "Context sequences generating.", () => sources.engine.stats().sequencesBusy);
        gauge("sequences_total", "Context sequences of the loaded model.", () => sources.engine.stats().sequencesTotal);
        gauge("store_entries", "Stored responses.", () => sources.store.stats().entries);
        gauge("store_bytes", "Approximate bytes of stored responses.", () => sources.store.stats().bytes);
        gauge("conversation_entries", "Stored conversations.", () => sources.conversations.stats().entries);
        gauge("conversation_bytes", "Approximate bytes of stored conversations.", () => sources.conversations.stats().bytes);
        gauge("background_jobs_queued", "Background responses waiting for a worker or a sequence.", () => sources.jobs.stats().queued);
        gauge("background_jobs_running", "Background responses being generated.", () => sources.jobs.stats().running);
        gauge("background_jobs_retained", "Finished background records kept for polling and replay.", () => sources.jobs.stats().retained);
        gauge("background_event_bytes", "Bytes of retained background stream events.", () => sources.jobs.stats().eventBytes);
        gauge("background_stream_readers", "Background stream readers attached.", () => sources.readers.active);

        upstreamMetrics(this.registry, sources.engine);
        this.byModel = new ModelMetrics(this.registry, sources.engine);
        this.prefixReads = new PrefixReads(this.registry);

        // Cumulative counts the stores keep themselves, exported as counters by their growth since the last scrape.
        cumulativeCounter(this.registry, "store_events_total", "Response store events: hit, miss, write, eviction, expiration, deletion.",
            () => storeEvents(sources.store.stats()));
        cumulativeCounter(this.registry, "conversation_events_total",
            "Conversation store events: hit, miss, write, eviction, expiration, deletion.",
            () => storeEvents(sources.conversations.stats()));
        cumulativeCounter(this.registry, "background_jobs_total",
            "Background responses by outcome: submitted, rejected, completed, failed, cancelled, expired.", () => {
                const stats = sources.jobs.stats();
                return {
                    submitted: stats.submitted, rejected: stats.rejected, completed: stats.completed, failed: stats.failed,
                    cancelled: stats.cancelled, expired: stats.expired
                };
            });
    }

    /** Counts and times every request under its route pattern (ids never become labels). */
    public middleware(): RequestHandler {
        return (req, res, next) => {
            const started = performance.now();
            res.on("close", () => {
                const pattern = (req.route as {path?: unknown} | undefined)?.path;
                const route = typeof pattern === "string" ? `${req.baseUrl.replace(/^\/v1/, "")}${pattern}` : "unmatched";
                this.requests.inc({method: req.method, route, status: String(res.statusCode)});
                this.latency.observe({method: req.method, route}, (performance.now() - started) / 1000);
            });
            next();
        };
    }

    /**
     * Finished generations and output tokens of each API that had any (`/v1/status`'s `protocols`): the server's, or
     * with `owner` that key's own.
     */
    public protocolStatus(owner?: string): Record<string, {generations: number, output_tokens: number}> {
        const totals = owner == null ? this.protocolTotals : this.ownerTotals.get(owner) ?? new Map<ApiProtocol, ProtocolTotals>();
        return Object.fromEntries([...totals].map(([protocol, {generations, outputTokens}]) => [
            protocol, {generations, output_tokens: outputTokens}
        ]));
    }

    /** Cached prefixes read, by where they came from (`/v1/status`'s `engine.prefix_reads`): the server's, or `owner`'s own. */
    public prefixReadStatus(owner?: string): PrefixReadTotals {
        return this.prefixReads.status(owner);
    }

    public recordGeneration(stats: GenerationStats): void {
        const {protocol} = stats;
        addTo(this.protocolTotals, stats);
        let own = this.ownerTotals.get(stats.owner);
        if (own == null)
            this.ownerTotals.set(stats.owner, own = new Map<ApiProtocol, ProtocolTotals>());
        addTo(own, stats);
        this.generations.inc({protocol, status: stats.status});
        this.byModel.record(stats);
        this.prefixReads.record(stats);
        this.tokens.inc({protocol, kind: "input"}, stats.inputTokens);
        this.tokens.inc({protocol, kind: "cached"}, stats.cachedTokens);
        this.tokens.inc({protocol, kind: "output"}, stats.outputTokens);
        if (stats.timeToFirstTokenMs != null)
            this.timeToFirstToken.observe({protocol}, stats.timeToFirstTokenMs / 1000);
        if (stats.outputTokens > 0 && stats.durationMs > 0)
            this.tokensPerSecond.observe({protocol}, stats.outputTokens / (stats.durationMs / 1000));
    }

    /** How one of the editor's suggestions ended, or that one was accepted (its generation is counted as `vscode_completions`). */
    public recordEditorSuggestion(outcome: "shown" | "empty" | "cancelled" | "failed" | "accepted"): void {
        this.editorSuggestions.inc({outcome});
    }

    public recordAbortedGeneration(kind: AbortKind): void {
        this.abortedGenerations.inc({reason: kind});
    }

    public get contentType(): string {
        return this.registry.contentType;
    }

    /** Every figure: for a server with one key, or one whose operator lets every key see all (`--status-all-keys`). */
    public text(): Promise<string> {
        return this.registry.metrics();
    }

    /**
     * What one key may see when others share the server: the occupancy gauges (model, queue, sequences, stores, jobs,
     * upstreams) and its own generation and token counters. Per-request traffic (requests, latencies, time to first
     * token, every key's tokens) would let it follow another key's activity and prompt sizes.
     */
    public async ownText(owner: string): Promise<string> {
        const shared = (await this.registry.metrics()).split("\n").filter((line) => !trafficFamilies.has(familyOf(line)));
        const own = this.ownerTotals.get(owner) ?? new Map<ApiProtocol, ProtocolTotals>();
        const lines = [
            `# HELP ${prefix}tokens_total Tokens of this API key's generations by API and kind: input, cached, output.`,
            `# TYPE ${prefix}tokens_total counter`,
            ...[...own].flatMap(([protocol, totals]) => (["input", "cached", "output"] as const).map((kind) =>
                `${prefix}tokens_total{protocol="${protocol}",kind="${kind}"} ${totals[`${kind}Tokens`]}`)),
            `# HELP ${prefix}generations_total This API key's finished generations by API and response status.`,
            `# TYPE ${prefix}generations_total counter`,
            ...[...own].flatMap(([protocol, totals]) => Object.entries(totals.statuses).map(([status, count]) =>
                `${prefix}generations_total{protocol="${protocol}",status="${status}"} ${count}`)),
            ...this.prefixReads.ownLines(owner)
        ];
        return `${shared.filter((line) => line !== "").join("\n")}\n${lines.join("\n")}\n`;
    }
}

type ProtocolTotals = {
    generations: number, inputTokens: number, cachedTokens: number, outputTokens: number, statuses: Record<string, number>
};

function addTo(totals: Map<ApiProtocol, ProtocolTotals>, stats: GenerationStats): void {
    const current = totals.get(stats.protocol) ?? {generations: 0, inputTokens: 0, cachedTokens: 0, outputTokens: 0, statuses: {}};
    current.generations++;
    current.inputTokens += stats.inputTokens;
    current.cachedTokens += stats.cachedTokens;
    current.outputTokens += stats.outputTokens;
    current.statuses[stats.status] = (current.statuses[stats.status] ?? 0) + 1;
    totals.set(stats.protocol, current);
}

/** The metric families that follow requests one by one: the full view only. */
const trafficFamilies = new Set([
    "http_requests_total", "http_request_duration_seconds", "tokens_total", "generations_total", "generations_aborted_total",
    "time_to_first_token_seconds", "generation_tokens_per_second", "model_generations_total", "model_tokens_total",
    "editor_suggestions_total"
].map((name) => `${prefix}${name}`).concat(prefixReadFamilies));

/** The family a line of Prometheus text belongs to (`# HELP name …`, `name{…} value`, a histogram's `_bucket`…). */
function familyOf(line: string): string {
    const name = line.startsWith("#") ? line.split(" ")[2] ?? "" : /^[^{ ]+/.exec(line)?.[0] ?? "";
    return trafficFamilies.has(name) ? name : name.replace(/_(bucket|sum|count)$/, "");
}

/** A store's cumulative counts under the event names both store counters export. */
function storeEvents(stats: StoreCounters): Record<string, number> {
    return {
        hit: stats.hits, miss: stats.misses, write: stats.writes, eviction: stats.evictions, expiration: stats.expirations,
        deletion: stats.deletions
    };
}

/**
 * With the upstream engine, each upstream server's state and load, labelled by its URL (credentials are
 * never part of it): up (1/0), outstanding requests, and requests and errors since start (counters).
 */
function upstreamMetrics(registry: Registry, engine: ChatEngine): void {
    const upstreams = () => engine.stats().upstreams ?? [];
    const labelled = (name: string, help: string, read: (upstream: UpstreamStats) => number) => new Gauge({
        name: `${prefix}${name}`, help, labelNames: ["upstream"], registers: [registry],
        collect() {
            this.reset();
            for (const upstream of upstreams())
                this.set({upstream: upstream.url}, read(upstream));
        }
    });
    labelled("upstream_up", "1 when the upstream answers its health check or last request.",
        (upstream) => (upstream.state === "down" ? 0 : 1));
    labelled("upstream_outstanding_requests", "Requests sent to the upstream and not finished.", (upstream) => upstream.outstanding);
    for (const [name, help, read] of [
        ["upstream_requests_total", "Requests sent to the upstream.", (upstream: UpstreamStats) => upstream.requests],
        [
            "upstream_errors_total", "Requests the upstream failed (unreachable, error status, cut or malformed stream, timeout).",
            (upstream: UpstreamStats) => upstream.errors
        ]
    ] as const) {
        const last = new Map<string, number>();
        new Counter({
            name: `${prefix}${name}`, help, labelNames: ["upstream"], registers: [registry],
            collect() {
                for (const upstream of upstreams()) {
                    const value = read(upstream);
                    this.inc({upstream: upstream.url}, Math.max(0, value - (last.get(upstream.url) ?? 0)));
                    last.set(upstream.url, value);
                }
            }
        });
    }
}

function cumulativeCounter(registry: Registry, name: string, help: string, read: () => Record<string, number>): void {
    const last = new Map<string, number>();
    new Counter({
        name: `${prefix}${name}`, help, labelNames: ["event"], registers: [registry],
        collect() {
            for (const [event, value] of Object.entries(read())) {
                const delta = value - (last.get(event) ?? 0);
                if (delta > 0)
                    this.inc({event}, delta);
                else
                    this.inc({event}, 0);
                last.set(event, value);
            }
        }
    });
}
