import {RecordingProxy, type ProxyRewrites} from "./recordingProxy.js";
import {startTestServer, type TestServer, type TestServerOptions} from "./testServer.js";

export type ClientHarness = {
    server: TestServer,
    proxy: RecordingProxy,
    /** Base URL (with `/v1`) that real clients use: the recording proxy in front of the server. */
    url: string,
    apiKey: string,
    close(): Promise<void>
};

/** The real server behind a recording proxy: client tests talk through it so every answer is checked for conformance. */
export async function startClientHarness(options: TestServerOptions = {}, rewrites: ProxyRewrites = {}): Promise<ClientHarness> {
    const server = await startTestServer(options);
    const proxy = await RecordingProxy.start(server.origin, rewrites);
    return {
        server,
        proxy,
        url: proxy.url,
        apiKey: server.apiKey,
        close: async () => {
            await proxy.close();
            await server.close();
        }
    };
}
