import {EngineError} from "../EngineError.js";
import type {Upstream} from "./Upstream.js";
import {causeText, errorMessage} from "./upstreamErrors.js";

/** Generous: a busy machine answers slowly, and a refused connection fails at once anyway. */
const probeTimeoutMs = 10_000;

/**
 * What the upstreams say about the model: its name, when they tell its context size, and every model name they list,
 * each with the context size they tell for it (vLLM and llama.cpp's router give each model its own).
 */
export type DiscoveredModel = {model: string, contextSize: number | null, listed: string[], listedContexts: Record<string, number | null>};

type ModelEntry = {id?: unknown, max_model_len?: unknown, context_length?: unknown, meta?: {n_ctx_train?: unknown} | null};

/**
 * Asks every upstream for `/v1/models` (and llama-server's `/props`), marking each up or down. The model is
 * `wanted` when given (it must be listed by at least one upstream that lists models), else the first
 * answering upstream's first model. A model's context size is the smallest any upstream reports for it: vLLM's
 * `max_model_len`, llama-server's per-slot `n_ctx` (or `meta.n_ctx_train`), or a `context_length` field.
 */
export async function discoverModel(upstreams: readonly Upstream[], wanted: string | null): Promise<DiscoveredModel> {
    const answers = await Promise.all(upstreams.map(async (upstream) => {
        try {
            const entries = await modelEntries(upstream);
            upstream.markUp();
            type Props = {total_slots?: unknown, default_generation_settings?: {n_ctx?: unknown}};
            const props = await getJson(upstream, "/props").catch(() => null) as Props | null;
            if (typeof props?.total_slots === "number" && props.total_slots > 0)
                upstream.slots = props.total_slots;
            const slotContext = props?.default_generation_settings?.n_ctx;
            return {entries, slotContext: typeof slotContext === "number" ? slotContext : null};
        } catch (error) {
            upstream.markDown(causeText(error));
            return null;
        }
    }));
    const reachable = answers.filter((answer) => answer != null);
    if (reachable.length === 0)
        throw new EngineError("load_failed",
            `No upstream answered GET /v1/models: ${upstreams.map((upstream) => `${upstream.label}: ${upstream.lastError}`).join("; ")}`);
    const listed = reachable.flatMap((answer) => answer.entries).filter((entry) => typeof entry.id === "string");
    const names = [...new Set(listed.map((entry) => entry.id as string))];
    const model = wanted ?? names[0];
    if (model == null)
        throw new EngineError("load_failed", "The upstreams list no model; name one with --upstream-model.");
    if (wanted != null && names.length > 0 && !names.includes(wanted))
        throw new EngineError("load_failed",
            `No upstream serves the model '${wanted}' (they list: ${names.join(", ")}).`);
    const contextOf = (name: string): number | null => {
        const sizes = reachable.flatMap((answer) => {
            const entry = answer.entries.find((candidate) => candidate.id === name);
            const trained = answer.slotContext == null ? entry?.meta?.n_ctx_train : null;
            return [answer.slotContext, entry?.max_model_len, entry?.context_length, trained]
                .filter((value): value is number => typeof value === "number" && value > 0);
        });
        return sizes.length === 0 ? null : Math.min(...sizes);
    };
    return {
        model, contextSize: contextOf(model), listed: names,
        listedContexts: Object.fromEntries(names.map((name) => [name, contextOf(name)]))
    };
}

/** The model names one upstream lists at `GET /v1/models` (the editor's Load Model… offers them); throws when it does not answer. */
export async function listModels(upstream: Upstream): Promise<string[]> {
    return (await modelEntries(upstream)).map((entry) => entry.id).filter((id): id is string => typeof id === "string");
}

/** The entries of an upstream's `GET /v1/models` (none when it lists none); throws when it does not answer. */
async function modelEntries(upstream: Upstream): Promise<ModelEntry[]> {
    const models = await getJson(upstream, "/v1/models") as {data?: ModelEntry[]};
    return Array.isArray(models.data) ? models.data : [];
}

/**
 * Probes every upstream each `intervalMs` (`probeHealth`), marking it up or down and logging each change; returns the
 * timer (unref'd), which the caller clears.
 */
export function startHealthChecks(upstreams: readonly Upstream[], intervalMs: number, log?: (line: string) => void): NodeJS.Timeout {
    const check = () => {
        for (const upstream of upstreams)
            void probeHealth(upstream).then((healthy) => {
                const was = upstream.state;
                if (healthy)
                    upstream.markUp();
                else if (was !== "down")
                    upstream.markDown(upstream.lastError ?? "health check failed");
                if (was !== upstream.state)
                    log?.(`upstream: ${upstream.label} is ${upstream.state}`);
            });
    };
    const timer = setInterval(check, intervalMs);
    timer.unref();
    return timer;
}

/** Whether the upstream answers: `GET /health` (llama-server, vLLM, SGLang), else `GET /v1/models` (Ollama, others). */
export async function probeHealth(upstream: Upstream): Promise<boolean> {
    try {
        const response = await fetch(upstream.url("/health"),
            {headers: upstream.headers(false), signal: AbortSignal.timeout(probeTimeoutMs)});
        await response.arrayBuffer().catch(() => undefined);
        if (response.ok)
            return true;
        if (response.status !== 404) {
            upstream.lastError = `GET /health answered ${response.status}`;
            return false;
        }
        await getJson(upstream, "/v1/models");
        return true;
    } catch (error) {
        upstream.lastError = causeText(error);
        return false;
    }
}

async function getJson(upstream: Upstream, path: string): Promise<unknown> {
    const response = await fetch(upstream.url(path), {headers: upstream.headers(false), signal: AbortSignal.timeout(probeTimeoutMs)});
    const text = await response.text();
    if (!response.ok)
        throw new Error(`GET ${path} answered ${response.status}: ${errorMessage(text)}`);
    return JSON.parse(text);
}
