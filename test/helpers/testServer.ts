import {after, before} from "node:test";
import OpenAI from "openai";
import {defaultConfig, type HostConfig} from "../../src/host/config.js";
import {LocalResponsesHost} from "../../src/host/LocalResponsesHost.js";
import {models} from "./paths.js";

export type TestServer = {
    host: LocalResponsesHost,
    /** Base URL with `/v1`. */
    url: string,
    /** Origin without `/v1`. */
    origin: string,
    apiKey: string,
    client: OpenAI,
    /** Raw fetch against the server with the API key (override headers to test auth). */
    fetch(path: string, init?: RequestInit & {json?: unknown}): Promise<Response>,
    close(): Promise<void>
};

export type TestServerOptions = Partial<Omit<HostConfig, "store">> & {
    store?: Partial<HostConfig["store"]>,
    model?: string,
    /** Receives the host's log lines. */
    log?: (line: string) => void
};

/** The real host (engine, store, HTTP) on an ephemeral loopback port, with the shared tiny model. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
    const apiKey = options.apiKeys?.[0] ?? "sk-test-key";
    const base = defaultConfig();
    const {log, model, ...settings} = options;
    const config: HostConfig = {
        ...base,
        ...settings,
        port: 0,
        threads: options.threads ?? 1,
        contextSize: options.contextSize ?? 2048,
        apiKeys: options.apiKeys ?? [apiKey],
        store: {...base.store, ...options.store}
    };
    const host = new LocalResponsesHost(config, {log});
    await host.loadModel(model ?? models.chatml);
    const url = await host.start();
    const origin = url.replace(/\/v1$/, "");
    return {
        host,
        url,
        origin,
        apiKey,
        client: new OpenAI({baseURL: url, apiKey, maxRetries: 0, timeout: 60_000}),
        fetch: (path, init = {}) => {
            const headers = new Headers(init.headers);
            if (!headers.has("authorization") && !headers.has("x-api-key"))
                headers.set("authorization", `Bearer ${apiKey}`);
            let body = init.body;
            if (init.json !== undefined) {
                headers.set("content-type", "application/json");
                body = JSON.stringify(init.json);
            }
            return fetch(`${origin}${path}`, {...init, headers, body});
        },
        close: () => host.dispose()
    };
}

/**
 * The enclosing suite's test server: started in its `before` hook, closed in its `after` hook. What it returns stands
 * for the server from the moment the hook has run; read before that (at the suite's top level) it throws.
 */
export function useTestServer(options: TestServerOptions = {}): TestServer {
    let started: TestServer | undefined;
    before(async () => {
        started = await startTestServer(options);
    });
    after(() => started?.close());
    return new Proxy({} as TestServer, {
        get: (_target, key) => {
            if (started == null)
                throw new Error("The test server starts in the suite's before() hook: use it inside a test or a later hook.");
            return Reflect.get(started, key);
        }
    });
}

/** Reads an SSE response body into parsed events (comment blocks, such as keep-alives, carry none and are skipped). */
export async function readSse(response: Response): Promise<Array<{type: string, sequence_number: number, [key: string]: any}>> {
    const text = await response.text();
    return text.split("\n\n").flatMap((block) => {
        const data = block.split("\n").find((line) => line.startsWith("data: "));
        return data == null ? [] : [JSON.parse(data.slice(6))];
    });
}
