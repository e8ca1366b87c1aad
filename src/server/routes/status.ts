import {Router} from "express";
import type {ModelDirectory} from "../../engine/types.js";
import {seenUse} from "../modelUseView.js";
import type {ServerMetrics, MetricsSources, StoreOccupancy} from "../metrics.js";
import {backendWire} from "./backendWire.js";
import {chatFormatWire} from "./chatFormatWire.js";

/**
 * `GET /v1/status` (JSON: model, engine, store and job occupancy, cache counters) and `GET /metrics`
 * (Prometheus text). Neither carries key material, owner ids or prompt text. Where `seesAll(owner)` is false (several
 * keys, no `--status-all-keys`, not an operator's key), a key is shown its own generations, tokens and use of each model
 * and the server's occupancy, not the others' traffic or timing.
 */
export function statusRouter(sources: MetricsSources, metrics: ServerMetrics,
    seesAll: (owner: string) => boolean = () => true): Router {
    const router = Router();

    router.get("/status", (req, res) => {
        const all = seesAll(req.owner);
        const model = sources.engine.model;
        const {store, conversations, jobs, readers} = sources;
        res.json({
            object: "status",
            model: model == null ? null
                : {
                    id: model.id, context_size: model.contextSize, sequences: model.sequences, chat_wrapper: model.chatWrapper,
                    ...chatFormatWire(model),
                    ...model.keyCache != null && {cache_type_k: model.keyCache.type},
                    ...model.batchSize != null && {batch_size: model.batchSize},
                    ...model.flashAttention != null && {flash_attention: model.flashAttention},
                    ...backendWire(model)
                },
            // Cached prefixes read by where they were: this key's own where it sees only its own traffic.
            engine: {...engineStatus(sources), prefix_reads: metrics.prefixReadStatus(all ? undefined : req.owner)},
            ...sources.engine.library != null && {models: libraryStatus(sources.engine.library, all ? null : req.owner)},
            responses: storeStatus(store),
            conversations: storeStatus(conversations),
            background: {
                ...snake(jobs.stats()),
                max_active: jobs.maxActive, max_active_per_key: jobs.maxActivePerOwner, workers: jobs.workers,
                deadline_seconds: jobs.deadlineSeconds, retention_seconds: jobs.retentionSeconds
            },
            stream_readers: {active: readers.active, max: readers.maxReaders, max_per_key: readers.maxReadersPerOwner},
            // Finished generations per API (responses, chat_completions, messages, vscode_lm): the three protocols share one path.
            // `all`: the server's; `own`: this key's alone (the figures of the others are not its to see).
            view: all ? "all" : "own",
            protocols: metrics.protocolStatus(all ? undefined : req.owner)
        });
    });

    router.get("/metrics", async (req, res) => {
        res.setHeader("Content-Type", metrics.contentType);
        res.send(seesAll(req.owner) ? await metrics.text() : await metrics.ownText(req.owner));
    });

    return router;
}

/** The engine's state and load; speculative decoding's counts when the local engine has them. */
function engineStatus(sources: MetricsSources): Record<string, unknown> {
    const {speculative, ...stats} = sources.engine.stats();
    return {state: sources.engine.state, ...snake(stats), ...speculative != null && {speculative: snake(speculative)}};
}

/** A model library's limits and each model's state, memory estimate, sequences, queue and last use (`viewer`'s own, if set). */
function libraryStatus(library: ModelDirectory, viewer: string | null): Record<string, unknown> {
    const {maxLoaded, memoryBudgetBytes, idleUnloadSeconds} = library.limits;
    const models = library.list();
    return {
        max_loaded: maxLoaded, memory_budget_bytes: memoryBudgetBytes, idle_unload_seconds: idleUnloadSeconds,
        // Of the local models: an upstream's (served beside them) is always `loaded` and counts in no limit here.
        loaded: models.filter((model) => model.status === "loaded" && model.upstreamHosts == null).length,
        memory_estimate_bytes: models.filter((model) => model.status !== "unloaded" && model.status !== "failed")
            .reduce((total, model) => total + (model.estimatedBytes ?? 0), 0),
        data: models.map((model) => ({
            id: model.id, status: model.status, ...model.failure != null && {failure: model.failure},
            ...model.upstreamHosts != null && {engine: "upstream", upstream_hosts: model.upstreamHosts},
            memory_estimate_bytes: model.estimatedBytes, context_size: model.contextSize, in_flight: model.inFlight,
            // Where it computes, while loaded.
            ...backendWire(model.info),
            last_used_at: seenUse(model, viewer).lastUsedAt,
            ...model.stats != null && {sequences_busy: model.stats.sequencesBusy, sequences_total: model.stats.sequencesTotal,
                queue_depth: model.stats.queueDepth},
            // A model in its own process: which, and its resident memory as it last reported it.
            ...model.stats?.process != null && {process_id: model.stats.process.pid, rss_bytes: model.stats.process.rssBytes}
        }))
    };
}

/** A store's occupancy and counters, then the bounds it applies. */
function storeStatus(store: StoreOccupancy): Record<string, unknown> {
    return {
        ...snake(store.stats()), max_entries: store.bounds.maxEntries, max_bytes: store.bounds.maxBytes,
        ttl_seconds: store.bounds.ttlSeconds
    };
}

function snake(stats: object): Record<string, unknown> {
    return Object.fromEntries(
        Object.entries(stats).map(([key, value]) => [key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`), value])
    );
}
