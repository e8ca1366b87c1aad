import {defaultConfig} from "../../src/host/config.js";
import {startLlamaServer, type LlamaServerProcess} from "./llamaServer.js";
import {models} from "./paths.js";
import {RecordingProxy, type ProxyRewrites} from "./recordingProxy.js";
import {startTestServer, type TestServer, type TestServerOptions} from "./testServer.js";

export type ClientHarness = {
    server: TestServer,
    proxy: RecordingProxy,
    /** Base URL (with `/v1`) that real clients use: the recording proxy in front of the server. */
    url: string,
    apiKey: string,
    /** The llama-server the server fronts, in upstream mode (`LOCAL_RESPONSES_TEST_ENGINE=upstream`). */
    upstream: LlamaServerProcess | null,
    close(): Promise<void>
};

/**
 * `LOCAL_RESPONSES_TEST_ENGINE=upstream` runs the client suites with the server in `--engine upstream` in front of a
 * real llama-server on the same model (`npm run test:clients:upstream`); cases the tiny models cannot pass behind
 * llama-server skip themselves there, saying why (`skipUpstream`).
 */
export const upstreamMode = process.env.LOCAL_RESPONSES_TEST_ENGINE === "upstream";

/** A case's `skip` option: the reason it cannot pass in upstream mode, or false. */
export function skipUpstream(reason: string): string | false {
    return upstreamMode ? `upstream mode: ${reason}` : false;
}

/** The real server behind a recording proxy: client tests talk through it so every answer is checked for conformance. */
export async function startClientHarness(options: TestServerOptions = {}, rewrites: ProxyRewrites = {}): Promise<ClientHarness> {
    const upstream = upstreamMode && options.engine !== "upstream"
        ? await startLlamaServer({
            model: options.model ?? models.chatml, slots: options.parallel ?? 2, contextPerSlot: options.contextSize ?? 2048
        })
        : null;
    const server = await startTestServer(upstream == null ? options : {
        ...options,
        engine: "upstream",
        upstream: {...defaultConfig().upstream, urls: [upstream.url], healthIntervalMs: 1000, timeoutSeconds: 60}
    });
    const proxy = await RecordingProxy.start(server.origin, rewrites);
    return {
        server,
        proxy,
        url: proxy.url,
        apiKey: server.apiKey,
        upstream,
        close: async () => {
            await proxy.close();
            await server.close();
            await upstream?.stop();
        }
    };
}
