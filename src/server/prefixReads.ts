import {Counter, type Registry} from "prom-client";
import type {PrefixSource} from "../engine/types.js";
import type {GenerationStats} from "../responses/pipeline/GenerationRunner.js";

/** Every place a cached prefix can come from, in the order status and metrics list them. */
export const prefixSources: readonly PrefixSource[] = ["same_sequence", "other_sequence", "disk"];

/** Requests whose prompt read a cached prefix from one source, and the tokens they read from it. */
type SourceTotals = {requests: number, tokens: number};
export type PrefixReadTotals = Record<PrefixSource, SourceTotals>;

const counterPrefix = "local_responses_";
const tokensName = `${counterPrefix}prefix_read_tokens_total`;
const requestsName = `${counterPrefix}prefix_reads_total`;
const tokensHelp = "Prompt tokens read from a cached prefix instead of evaluated, by where the prefix was: same_sequence, "
    + "other_sequence (copied from another sequence), disk (a saved prompt state).";
const requestsHelp = "Generations whose prompt read a cached prefix, by where the prefix was (see prefix_read_tokens_total).";

/**
 * Where the prompts' cached prefixes came from (`GenerationStats.prefixSource`): the server's totals as Prometheus
 * counters and `/v1/status`'s `engine.prefix_reads`, and each key's own (for a key shown only its own traffic).
 * Whether a session's prefix comes from its own sequence, another or the disk tells an operator whether sub-agents and
 * restarts find what they share.
 */
export class PrefixReads {
    private readonly tokens: Counter<"source">;
    private readonly requests: Counter<"source">;
    private readonly all = emptyTotals();
    private readonly byOwner = new Map<string, PrefixReadTotals>();

    public constructor(registry: Registry) {
        this.tokens = new Counter({name: tokensName, help: tokensHelp, labelNames: ["source"], registers: [registry]});
        this.requests = new Counter({name: requestsName, help: requestsHelp, labelNames: ["source"], registers: [registry]});
        // Every source is exported from the start (at 0), so a rate query sees each series before its first read.
        for (const source of prefixSources) {
            this.tokens.inc({source}, 0);
            this.requests.inc({source}, 0);
        }
    }

    public record(stats: GenerationStats): void {
        const source = stats.prefixSource;
        if (source == null || stats.cachedTokens <= 0)
            return;
        this.tokens.inc({source}, stats.cachedTokens);
        this.requests.inc({source});
        let own = this.byOwner.get(stats.owner);
        if (own == null)
            this.byOwner.set(stats.owner, own = emptyTotals());
        for (const totals of [this.all, own]) {
            totals[source].requests++;
            totals[source].tokens += stats.cachedTokens;
        }
    }

    /** The server's totals, or with `owner` that key's own. */
    public status(owner?: string): PrefixReadTotals {
        const totals = owner == null ? this.all : this.byOwner.get(owner) ?? emptyTotals();
        return structuredClone(totals);
    }

    /** One key's counters in Prometheus text (the full view has the registry's). */
    public ownLines(owner: string): string[] {
        const own = this.status(owner);
        return [
            `# HELP ${tokensName} ${tokensHelp}`, `# TYPE ${tokensName} counter`,
            ...prefixSources.map((source) => `${tokensName}{source="${source}"} ${own[source].tokens}`),
            `# HELP ${requestsName} ${requestsHelp}`, `# TYPE ${requestsName} counter`,
            ...prefixSources.map((source) => `${requestsName}{source="${source}"} ${own[source].requests}`)
        ];
    }
}

/** The metric families of per-request traffic: a key that sees only its own gets its own lines of them instead. */
export const prefixReadFamilies = [tokensName, requestsName];

function emptyTotals(): PrefixReadTotals {
    return {same_sequence: {requests: 0, tokens: 0}, other_sequence: {requests: 0, tokens: 0}, disk: {requests: 0, tokens: 0}};
}
