import http from "node:http";
import type {AddressInfo} from "node:net";

/**
 * A scripted OpenAI-compatible upstream on loopback, for what real engines do not do on demand (malformed
 * streams, 429, silence) and for checking what is sent upstream (headers, bodies). `GET /v1/models` lists one
 * model, `scripted`, with a 4096-token context (or `models`); each `POST` is answered by the current script.
 */
export type Script = (req: http.IncomingMessage, res: http.ServerResponse, body: any) => void;

export async function scriptedUpstream(
    script: () => Script,
    /** What its `GET /v1/models` lists instead (vLLM's entries: `id`, `max_model_len`). */
    models: object[] = [{id: "scripted", max_model_len: 4096}]
): Promise<{url: string, requests: any[], headers: http.IncomingHttpHeaders[], closed: () => number, close(): Promise<void>}> {
    const requests: any[] = [];
    const headers: http.IncomingHttpHeaders[] = [];
    let closed = 0;
    const server = http.createServer((req, res) => {
        if (req.method === "GET") {
            res.setHeader("content-type", "application/json");
            res.end(req.url === "/v1/models" ? JSON.stringify({object: "list", data: models}) : "{}");
            return;
        }
        let text = "";
        req.on("data", (chunk) => (text += chunk));
        req.on("end", () => {
            const body = JSON.parse(text);
            requests.push(body);
            headers.push(req.headers);
            res.on("close", () => closed++);
            script()(req, res, body);
        });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
        requests,
        headers,
        closed: () => closed,
        close: () => new Promise((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
        })
    };
}

export const chunk = (delta: object,
    finish: string | null = null) => `data: ${JSON.stringify({choices: [{index: 0, delta, finish_reason: finish}]})}\n\n`;
export const sseHead = (res: http.ServerResponse) => res.writeHead(200, {"content-type": "text/event-stream"});
