import WebSocket from "ws";
import {soakKinds, type SoakKind, type SoakStats} from "./SoakStats.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What a request meets when the chaos agent kills or stops its model's process, or unloads its model under a queued
 * request: the crash's error (`model_crashed`, with the process's end in words) or the unload's. Expected under --chaos.
 */
const chaosCaused = /model_crashed|model's process ended|was unloaded|answered nothing/;

/** A Responses stream must end completed or incomplete; a failed one says why (its error), anything else is cut. */
function checkTerminal(what: string, text: string): void {
    if (/event: response\.(completed|incomplete)\n/.test(text))
        return;
    const failed = /event: response\.failed\ndata: (.*)\n/.exec(text)?.[1];
    if (failed != null)
        throw new Error(`${what} failed: ${JSON.stringify((JSON.parse(failed) as {response?: {error?: unknown}}).response?.error)}`);
    throw new Error(`${what} ended without a terminal event: …${text.slice(-300)}`);
}

/** An answer the soak expects now and then (overload, limits, eviction): counted, not a failure. */
function expectedRefusal(reason: string): Error {
    return Object.assign(new Error(reason), {expected: true});
}

/**
 * One soak client with its own key: it runs the kinds in turn (streaming; background + polling; chains, then
 * retrieve and input_items; conversations; background + cancel; streams cut mid-way; WebSocket chains with
 * store: false; Chat Completions, streamed and not; Chat Completions with logprobs; a stream read slowly) until the end
 * time, and counts every request, expected refusal and
 * unexpected error.
 */
export class SoakClient {
    private readonly headers: Record<string, string>;

    public constructor(
        private readonly origin: string,
        private readonly apiKey: string,
        private readonly index: number,
        private readonly stats: SoakStats,
        private readonly options: {maxOutputTokens: number, thinkMs: number, models: readonly string[], chaos: boolean}
    ) {
        this.headers = {authorization: `Bearer ${apiKey}`, "content-type": "application/json"};
    }

    public async run(until: number): Promise<void> {
        for (let turn = 0; Date.now() < until; turn++) {
            const kind = soakKinds[(this.index + turn) % soakKinds.length]!;
            try {
                await this[kind]();
            } catch (error) {
                if ((error as {expected?: boolean}).expected === true)
                    this.stats.refusal((error as Error).message);
                else if (this.options.chaos && chaosCaused.test((error as Error).message))
                    this.stats.refusal("the chaos ended the request's model (model_crashed or unloaded)");
                else
                    this.stats.fail(kind, (error as Error).message);
            }
            await sleep(this.options.thinkMs);
        }
    }

    /** A served model's name, picked at random for each request (a chain's turns may each name another). */
    private model(): string {
        const {models} = this.options;
        return models[Math.floor(Math.random() * models.length)]!;
    }

    private body(input: unknown, extra: Record<string, unknown> = {}) {
        return {model: this.model(), input, max_output_tokens: this.options.maxOutputTokens, temperature: 0.8, ...extra};
    }

    /** One HTTP exchange; statuses in `refusals` (with their reason) are expected refusals. */
    private async call(kind: SoakKind, method: string, url: string, json?: unknown, refusals: Record<number, string> = {}): Promise<any> {
        this.stats.request(kind);
        const res = await fetch(`${this.origin}${url}`, {
            method, headers: this.headers, body: json === undefined ? undefined : JSON.stringify(json), signal: AbortSignal.timeout(120_000)
        });
        const text = await res.text();
        if (res.status === 200)
            return JSON.parse(text);
        const reason = refusals[res.status] ?? (res.status === 503 ? "503 overloaded" : res.status === 429 ? "429 limit" : undefined);
        if (reason != null)
            throw expectedRefusal(reason);
        throw new Error(`${method} ${url.replace(/\/(resp|conv)_[A-Za-z0-9]+/g, "/$1_…")} → ${res.status} ${text.slice(0, 200)}`);
    }

    private async stream(): Promise<void> {
        this.stats.request("stream");
        const res = await fetch(`${this.origin}/v1/responses`, {
            method: "POST", headers: this.headers, body: JSON.stringify(this.body("Tell me a story.", {stream: true, store: false})),
            signal: AbortSignal.timeout(120_000)
        });
        const text = await res.text();
        if (res.status === 503)
            throw expectedRefusal("503 overloaded");
        if (res.status !== 200)
            throw new Error(`stream → ${res.status} ${text.slice(0, 200)}`);
        checkTerminal("stream", text);
    }

    /** Chat Completions, streamed then not: the same queue and engine as Responses, nothing stored. */
    private async chat(): Promise<void> {
        const messages = [{role: "user", content: "Tell me a story."}];
        const body = {model: this.model(), messages, max_tokens: this.options.maxOutputTokens, temperature: 0.8};
        this.stats.request("chat");
        const streamed = JSON.stringify({...body, stream: true, stream_options: {include_usage: true}});
        const res = await fetch(`${this.origin}/v1/chat/completions`, {
            method: "POST", headers: this.headers, body: streamed, signal: AbortSignal.timeout(120_000)
        });
        const text = await res.text();
        if (res.status === 503)
            throw expectedRefusal("503 overloaded");
        if (res.status !== 200)
            throw new Error(`chat stream → ${res.status} ${text.slice(0, 200)}`);
        if (!/"finish_reason":"(stop|length)"/.test(text) || !text.trimEnd().endsWith("data: [DONE]"))
            throw new Error(`chat stream ended without a finish reason and [DONE]: …${text.slice(-300)}`);
        const completion = await this.call("chat", "POST", "/v1/chat/completions", body);
        if (completion.object !== "chat.completion" || completion.usage?.completion_tokens == null)
            throw new Error(`chat completion without its object or usage: ${JSON.stringify(completion).slice(0, 200)}`);
    }

    /** Chat Completions with logprobs and alternatives: one entry per answer token, each with its five alternatives. */
    private async logprobs(): Promise<void> {
        const completion = await this.call("logprobs", "POST", "/v1/chat/completions", {
            model: this.model(), messages: [{role: "user", content: "Tell me a story."}], max_tokens: this.options.maxOutputTokens,
            logprobs: true, top_logprobs: 5
        });
        const content = completion.choices?.[0]?.logprobs?.content as Array<{top_logprobs: unknown[]}> | undefined;
        // A thinking model's completion tokens count its thought, which has no entries.
        const tokens = completion.usage?.completion_tokens - (completion.usage?.completion_tokens_details?.reasoning_tokens ?? 0);
        // An answer the limit cut in the middle of a character has no text for that character's tokens: no entries
        // for them (at most a few), one for each token of the text.
        const heldBack = completion.choices?.[0]?.finish_reason === "length" ? 3 : 0;
        if (content == null || content.length > tokens || content.length < tokens - heldBack
            || content.some((entry) => entry.top_logprobs.length !== 5))
            throw new Error(`logprobs: ${content?.length} entries for ${completion.usage?.completion_tokens} tokens`);
    }

    /** A stream read slowly (a pause after every chunk): slow but live, it must get every event to the end. */
    private async slowReader(): Promise<void> {
        this.stats.request("slowReader");
        const res = await fetch(`${this.origin}/v1/responses`, {
            method: "POST", headers: this.headers, body: JSON.stringify(this.body("A slow story.", {stream: true, store: false})),
            signal: AbortSignal.timeout(120_000)
        });
        if (res.status === 503)
            throw expectedRefusal("503 overloaded");
        if (res.status !== 200)
            throw new Error(`slow stream → ${res.status} ${await res.text()}`);
        const reader = res.body!.getReader();
        let text = "";
        for (;;) {
            const {done, value} = await reader.read();
            if (done)
                break;
            text += Buffer.from(value).toString("utf8");
            await sleep(40);
        }
        checkTerminal("slow stream", text);
    }

    private async background(): Promise<void> {
        let response = await this.call("background", "POST", "/v1/responses", this.body("A background story.", {background: true}));
        const deadline = Date.now() + 120_000;
        while (response.status === "queued" || response.status === "in_progress") {
            if (Date.now() > deadline)
                throw new Error(`background response still ${response.status} after 120 s`);
            await sleep(100);
            response = await this.call("background", "GET", `/v1/responses/${response.id}`);
        }
        if (response.status !== "completed" && response.status !== "incomplete")
            throw new Error(`background response ended ${response.status}: ${JSON.stringify(response.error)}`);
    }

    private async chain(): Promise<void> {
        const evicted = {404: "404 evicted (store at its cap)"};
        let previous: string | undefined;
        for (const input of ["Once upon a time", "What happened next?", "And in the end?"]) {
            const response = await this.call("chain", "POST", "/v1/responses",
                this.body(input, previous == null ? {} : {previous_response_id: previous}), evicted);
            previous = response.id;
        }
        await this.call("chain", "GET", `/v1/responses/${previous}`, undefined, evicted);
        await this.call("chain", "GET", `/v1/responses/${previous}/input_items?limit=5`, undefined, evicted);
    }

    private async conversation(): Promise<void> {
        const conversation = await this.call("conversation", "POST", "/v1/conversations",
            {items: [{role: "user", content: "Hello there."}]});
        const evicted = {404: "404 conversation evicted"};
        for (const input of ["Tell me about a cat.", "And a dog?"])
            await this.call("conversation", "POST", "/v1/responses", this.body(input, {conversation: conversation.id}), evicted);
        await this.call("conversation", "GET", `/v1/conversations/${conversation.id}/items?limit=10`, undefined, evicted);
        await this.call("conversation", "DELETE", `/v1/conversations/${conversation.id}`, undefined, evicted);
    }

    private async cancel(): Promise<void> {
        const created = await this.call("cancel", "POST", "/v1/responses",
            this.body("A story to cancel.", {background: true, max_output_tokens: this.options.maxOutputTokens * 4}));
        let cancelled = await this.call("cancel", "POST", `/v1/responses/${created.id}/cancel`);
        // A job whose engine has not let go within the cancel's wait is still active: the caller polls (docs/api.md).
        const deadline = Date.now() + 30_000;
        while ((cancelled.status === "queued" || cancelled.status === "in_progress") && Date.now() < deadline) {
            await sleep(200);
            cancelled = await this.call("cancel", "GET", `/v1/responses/${created.id}`);
        }
        if (!["cancelled", "completed", "incomplete"].includes(cancelled.status))
            throw new Error(`cancel answered status ${cancelled.status}, still so 30 s later`);
        await this.call("cancel", "DELETE", `/v1/responses/${created.id}`);
    }

    private async disconnect(): Promise<void> {
        this.stats.request("disconnect");
        const controller = new AbortController();
        const res = await fetch(`${this.origin}/v1/responses`,
            {
                method: "POST", headers: this.headers, body: JSON.stringify(this.body("A story cut short.",
                    {stream: true, max_output_tokens: this.options.maxOutputTokens * 4})), signal: controller.signal
            });
        if (res.status === 503)
            throw expectedRefusal("503 overloaded");
        if (res.status !== 200)
            throw new Error(`disconnect stream → ${res.status} ${await res.text()}`);
        const reader = res.body!.getReader();
        await reader.read();
        controller.abort();
        await reader.cancel().catch(() => undefined);
    }

    private async websocket(): Promise<void> {
        const ws = new WebSocket(`${this.origin.replace(/^http/, "ws")}/v1/responses`, {headers: {authorization: `Bearer ${this.apiKey}`}});
        const messages: any[] = [];
        let wake: (() => void) | undefined;
        ws.on("message", (data) => {
            messages.push(JSON.parse(data.toString()));
            wake?.();
        });
        ws.on("close", () => wake?.());
        try {
            await new Promise<void>((resolve, reject) => {
                ws.once("open", () => resolve());
                ws.once("error", reject);
            });
            let previous: string | undefined;
            for (const input of ["Once upon a time", "Go on."]) {
                this.stats.request("websocket");
                ws.send(
                    JSON.stringify({
                        type: "response.create",
                        ...this.body(input, {store: false, ...(previous == null ? {} : {previous_response_id: previous})})
                    })
                );
                const deadline = Date.now() + 120_000;
                for (;;) {
                    const message = messages.shift();
                    if (message == null) {
                        if (ws.readyState !== WebSocket.OPEN)
                            throw new Error("WebSocket closed mid-turn");
                        if (Date.now() > deadline)
                            throw new Error("WebSocket turn without a terminal event in 120 s");
                        await new Promise<void>((resolve) => {
                            wake = resolve;
                            setTimeout(resolve, 1000);
                        });
                        continue;
                    }
                    if (message.type === "error") {
                        if (message.status === 503 || message.status === 429)
                            throw expectedRefusal(`WebSocket ${message.status}`);
                        throw new Error(`WebSocket error event ${message.status}: ${JSON.stringify(message.error)}`);
                    }
                    if (message.type === "response.failed")
                        throw new Error(`WebSocket response failed: ${JSON.stringify(message.response?.error)}`);
                    if (message.type === "response.completed" || message.type === "response.incomplete") {
                        previous = message.response.id;
                        break;
                    }
                }
            }
        } finally {
            ws.close();
        }
    }
}
