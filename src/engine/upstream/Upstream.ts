import http from "node:http";
import https from "node:https";
import type {UpstreamStats} from "../types.js";

/** One OpenAI-compatible server: where it is, whether it answers, and how busy this engine keeps it. */
export class Upstream {
    /** The base URL ending before `/v1` (a trailing `/v1` given by the operator is removed). */
    public readonly base: string;
    /** The URL as shown in status and logs: no user info, no query. */
    public readonly label: string;
    public state: UpstreamStats["state"] = "unknown";
    public outstanding = 0;
    public requests = 0;
    public errors = 0;
    public lastError: string | null = null;
    /** Until when (ms since epoch) the upstream asked us to wait (its 429/503 `Retry-After`). */
    public busyUntil = 0;
    /** The status (429 or 503) that started the wait, passed on to clients refused meanwhile. */
    public busyStatus = 503;
    /** Parallel slots it reports (llama-server's `/props` `total_slots`), else null. */
    public slots: number | null = null;
    /** Keep-alive connections for generation requests (`streamCompletion`). */
    public readonly agent: http.Agent;

    public constructor(url: string, private readonly apiKey: string | null) {
        const parsed = new URL(url);
        if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
            throw new Error(`An upstream URL must be http or https: ${parsed.protocol}`);
        parsed.username = "";
        parsed.password = "";
        parsed.search = "";
        parsed.hash = "";
        this.base = parsed.toString().replace(/\/+$/, "").replace(/\/v1$/, "");
        this.label = this.base;
        this.agent = parsed.protocol === "https:" ? new https.Agent({keepAlive: true}) : new http.Agent({keepAlive: true});
    }

    public headers(json: boolean): Record<string, string> {
        return {
            ...(json ? {"content-type": "application/json"} : {}),
            ...(this.apiKey == null ? {} : {authorization: `Bearer ${this.apiKey}`})
        };
    }

    public url(path: string): string {
        return `${this.base}${path}`;
    }

    /** Usable for a new request: not known to be down, and not inside a Retry-After window. */
    public get available(): boolean {
        return this.state !== "down" && Date.now() >= this.busyUntil;
    }

    public markUp(): void {
        this.state = "up";
    }

    public markDown(reason: string): void {
        this.state = "down";
        this.lastError = reason;
    }

    /** Closes its pooled keep-alive connections (the engine is disposed, e.g. rebuilt after a settings change). */
    public close(): void {
        this.agent.destroy();
    }

    public recordError(reason: string): void {
        this.errors++;
        this.lastError = reason;
    }

    public stats(): UpstreamStats {
        return {
            url: this.label, state: this.state, outstanding: this.outstanding, requests: this.requests, errors: this.errors,
            lastError: this.lastError
        };
    }
}
