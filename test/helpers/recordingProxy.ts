import assert from "node:assert/strict";
import http from "node:http";
import type {AddressInfo} from "node:net";
import {assertValidEvent, assertValidResponse, assertValidStream} from "./conformance.js";

/** One HTTP exchange as the server answered it, recorded byte for byte. */
export type Exchange = {
    method: string,
    path: string,
    status: number,
    contentType: string,
    body: string,
    /** False when the client (or the server) cut the answer before it ended. */
    finished: boolean,
    /** The JSON request body as the server received it (after any rewrite), if there was one. */
    requestBody: any,
    /** Milliseconds from the request to the first output item: prompt evaluation plus one token. */
    firstOutputMs: number | null,
    totalMs: number
};

/**
 * Changes a JSON request body before it reaches the server (the recorded `requestBody` is the changed one).
 * There is deliberately no hook for answers: what a client receives is exactly what the server sent.
 */
export type RequestRewrite = (body: any, path: string) => any;

export type ProxyRewrites = {request?: RequestRewrite};

/**
 * A loopback HTTP proxy in front of the test server that records every answer: client tests point
 * their real clients at it, then `assertConformant()` checks everything the server emitted (response
 * objects, SSE streams and their events, error bodies) against the Open Responses schemas.
 */
export class RecordingProxy {
    public readonly exchanges: Exchange[] = [];
    private server: http.Server | undefined;
    public origin = "";

    private constructor(private readonly target: URL, private readonly rewrites: ProxyRewrites) {}

    public static async start(targetOrigin: string, rewrites: ProxyRewrites = {}): Promise<RecordingProxy> {
        const proxy = new RecordingProxy(new URL(targetOrigin), rewrites);
        await proxy.listen();
        return proxy;
    }

    /** Base URL with `/v1`, as clients take it. */
    public get url(): string {
        return `${this.origin}/v1`;
    }

    private async listen(): Promise<void> {
        const server = http.createServer((req, res) => this.forward(req, res));
        await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
        this.server = server;
        this.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    }

    private forward(req: http.IncomingMessage, res: http.ServerResponse): void {
        const started = performance.now();
        const received: Buffer[] = [];
        req.on("data", (chunk: Buffer) => received.push(chunk));
        req.on("end", () => this.send(req, res, Buffer.concat(received), started));
    }

    private send(req: http.IncomingMessage, res: http.ServerResponse, raw: Buffer, started: number): void {
        let requestBody: any = null;
        let payload = raw;
        if (String(req.headers["content-type"] ?? "").startsWith("application/json") && raw.length > 0) {
            requestBody = JSON.parse(raw.toString("utf8"));
            if (this.rewrites.request != null) {
                requestBody = this.rewrites.request(requestBody, req.url ?? "/");
                payload = Buffer.from(JSON.stringify(requestBody));
            }
        }
        const headers = {...req.headers, "content-length": String(payload.length)};
        delete headers["transfer-encoding"];
        const upstream = http.request({
            host: this.target.hostname,
            port: this.target.port,
            method: req.method,
            path: req.url,
            headers
        }, (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            const chunks: Buffer[] = [];
            let firstOutputMs: number | null = null;
            const record = (finished: boolean) => this.exchanges.push({
                method: req.method ?? "GET",
                path: req.url ?? "/",
                status: answer.statusCode ?? 0,
                contentType: String(answer.headers["content-type"] ?? ""),
                body: Buffer.concat(chunks).toString("utf8"),
                finished,
                requestBody,
                firstOutputMs,
                totalMs: performance.now() - started
            });
            let recorded = false;
            answer.on("data", (chunk: Buffer) => {
                chunks.push(chunk);
                if (firstOutputMs == null && chunk.includes("response.output_item.added"))
                    firstOutputMs = performance.now() - started;
                res.write(chunk);
            });
            answer.on("end", () => {
                res.end();
                if (!recorded)
                    record(true);
                recorded = true;
            });
            res.on("close", () => {
                if (!recorded)
                    record(false);
                recorded = true;
                answer.destroy();
            });
        });
        upstream.on("error", () => res.destroy());
        upstream.end(payload);
    }

    /** The SSE events of each recorded stream. */
    public get streams(): Array<{exchange: Exchange, events: Array<{type: string, sequence_number: number, [key: string]: any}>}> {
        return this.exchanges
            .filter((exchange) => exchange.contentType.startsWith("text/event-stream"))
            .map((exchange) => ({exchange, events: parseSse(exchange.body)}));
    }

    /** Every recorded answer against the schemas; returns how many objects and events were checked. */
    public assertConformant(): {responses: number, events: number, errors: number} {
        const counts = {responses: 0, events: 0, errors: 0};
        for (const exchange of this.exchanges) {
            const where = `${exchange.method} ${exchange.path} → ${exchange.status}`;
            if (exchange.contentType.startsWith("text/event-stream")) {
                const events = parseSse(exchange.body);
                try {
                    if (exchange.finished)
                        assertValidStream(events);
                    else
                        events.forEach((event) => assertValidEvent(event));
                    for (const event of events)
                        if (event.response != null)
                            assertValidResponse(event.response);
                } catch (error) {
                    throw new Error(`${where}: ${(error as Error).message}`, {cause: error});
                }
                counts.events += events.length;
                continue;
            }
            if (!exchange.contentType.startsWith("application/json") || exchange.body === "")
                continue;
            const body = JSON.parse(exchange.body);
            if (exchange.status >= 400) {
                assert.equal(typeof body.error?.message, "string", `${where}: error body without error.message`);
                assert.equal(typeof body.error?.type, "string", `${where}: error body without error.type`);
                assert.ok("param" in body.error && "code" in body.error, `${where}: error body without param/code`);
                counts.errors++;
            } else if (body.object === "response") {
                try {
                    assertValidResponse(body);
                } catch (error) {
                    throw new Error(`${where}: ${(error as Error).message}`, {cause: error});
                }
                counts.responses++;
            }
        }
        return counts;
    }

    public async close(): Promise<void> {
        const server = this.server;
        this.server = undefined;
        if (server == null)
            return;
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
    }
}

export function parseSse(text: string): Array<{type: string, sequence_number: number, [key: string]: any}> {
    return text.split("\n\n").filter((block) => block.includes("data: ")).map((block) => {
        const data = block.split("\n").filter((line) => line.startsWith("data: ")).map((line) => line.slice(6)).join("\n");
        return JSON.parse(data);
    });
}
