import http from "node:http";
import net from "node:net";
import zlib from "node:zlib";
import WebSocket from "ws";
import type {FuzzCase, HttpCase, RawCase, SocketCase} from "./caseArbitraries.js";
import type {LiveIds} from "./LiveIds.js";
import {clip, errorAnswerProblems, eventProblems, parseJson, sseProblems} from "./verdicts.js";

export type FuzzTarget = {
    port: number,
    live: LiveIds,
    /** Another key's ids: the fuzz key must never get a 2xx for a request naming one. */
    foreignIds: readonly string[],
    timeoutMs: number,
    /** Counts answers by status class (`2xx`, `4xx`, …, `ws turn`), to show how deep the cases got. */
    count(outcome: string): void
};

/** Runs one case and returns what was wrong with the server's answers (empty: all properties held). */
export function runCase(fuzzCase: FuzzCase, target: FuzzTarget): Promise<string[]> {
    switch (fuzzCase.kind) {
        case "http": return runHttp(fuzzCase, target);
        case "raw": return runRaw(fuzzCase, target);
        case "ws": return runSocket(fuzzCase, target);
    }
}

type HttpAnswer = {status: number, contentType: string, body: string, cut: boolean} | {failure: string} | {skipped: string};

async function runHttp(fuzzCase: HttpCase, target: FuzzTarget): Promise<string[]> {
    const problems = await httpProblems(fuzzCase, target);
    // A request asking for a WebSocket upgrade is answered by the upgrade path, not the app: say so.
    return /websocket/i.test(fuzzCase.headers.upgrade ?? "")
        ? problems.map((problem) => `WebSocket upgrade on ${fuzzCase.method}: ${problem}`) : problems;
}

async function httpProblems(fuzzCase: HttpCase, target: FuzzTarget): Promise<string[]> {
    const path = target.live.resolve(fuzzCase.path);
    const text = fuzzCase.body == null ? undefined : target.live.resolve(fuzzCase.body);
    const answer = await exchange(fuzzCase, path, text, target);
    if ("skipped" in answer)
        return [];
    if ("failure" in answer)
        return [answer.failure];
    const problems: string[] = [];
    const {status, body, contentType} = answer;
    target.count(`${Math.floor(status / 100)}xx`);
    if (status >= 400 && fuzzCase.method !== "HEAD" && !answer.cut)
        problems.push(...errorAnswerProblems(status, body));
    else if (status >= 500)
        problems.push(`${status} (body not read)`);
    // A body counts when the server parses it as JSON (without a JSON Content-Type it is never read).
    const bodyRead = /^application\/(json|[^;]*\+json)/i.test(fuzzCase.headers["content-type"] ?? "");
    const due = fuzzCase.expect4xx ?? (bodyRead ? fuzzCase.bodyExpect4xx : undefined);
    if (due != null && (status < 400 || status >= 500))
        problems.push(`${status} where a 4xx was due: ${due}`);
    if (status < 300 && target.foreignIds.some((id) => path.includes(id) || (bodyRead && text?.includes(id))))
        problems.push(`${status} for a request naming another key's object`);
    if (status < 300 && !answer.cut && fuzzCase.method !== "HEAD") {
        if (contentType.startsWith("text/event-stream"))
            problems.push(...sseProblems(body, (event) => target.live.observe(event)));
        else if (contentType.startsWith("application/json")) {
            const parsed = parseJson(body);
            if (parsed === undefined)
                problems.push(`${status} with unparsable JSON: ${clip(body)}`);
            target.live.observe(parsed);
            problems.push(...eventProblems(parsed));
        }
    }
    return problems;
}

function encodeBody(text: string, encoding: HttpCase["encoding"]): Buffer {
    const raw = Buffer.from(text, "utf8");
    if (encoding == null || !encoding.encode)
        return raw;
    if (encoding.name.startsWith("gzip"))
        return zlib.gzipSync(raw);
    if (encoding.name === "deflate")
        return zlib.deflateSync(raw);
    if (encoding.name === "br")
        return zlib.brotliCompressSync(raw);
    return raw;
}

function exchange(fuzzCase: HttpCase, path: string, text: string | undefined, target: FuzzTarget): Promise<HttpAnswer> {
    return new Promise((resolve) => {
        const headers: Record<string, string> = {...fuzzCase.headers};
        headers.host ??= `127.0.0.1:${target.port}`;
        const body = text == null ? undefined : encodeBody(text, fuzzCase.encoding);
        if (fuzzCase.encoding != null && body != null)
            headers["content-encoding"] = fuzzCase.encoding.name;
        // Node frames a body without Content-Length as chunked only for some methods: say it for all.
        if (body != null)
            headers[fuzzCase.chunked ? "transfer-encoding" : "content-length"] = fuzzCase.chunked ? "chunked" : String(body.length);
        let request: http.ClientRequest;
        try {
            request = http.request({
                host: "127.0.0.1", port: target.port, method: fuzzCase.method, path, headers, agent: false, setHost: false
            });
        } catch (error) {
            // The client itself refuses (an invalid path or header): nothing reached the server.
            resolve({skipped: (error as Error).message});
            return;
        }
        const timer = setTimeout(() => {
            request.destroy();
            resolve({failure: `no answer within ${target.timeoutMs} ms`});
        }, target.timeoutMs);
        const done = (answer: HttpAnswer) => {
            clearTimeout(timer);
            resolve(answer);
        };
        request.on("upgrade", (res, socket) => {
            socket.destroy();
            done({status: res.statusCode ?? 101, contentType: "", body: "", cut: true});
        });
        request.on("response", (res) => {
            const chunks: Buffer[] = [];
            const answer = (cut: boolean) => ({
                status: res.statusCode!, contentType: String(res.headers["content-type"] ?? ""),
                body: Buffer.concat(chunks).toString("utf8"), cut
            });
            res.on("data", (chunk: Buffer) => {
                chunks.push(chunk);
                if (fuzzCase.disconnectEarly) {
                    request.destroy();
                    done(answer(true));
                }
            });
            res.on("end", () => done(answer(false)));
            res.on("error", () => done(answer(true)));
            res.on("aborted", () => done(answer(true)));
        });
        request.on("error",
            (error: NodeJS.ErrnoException) => done({failure: `connection failed without an answer: ${error.code ?? error.message}`}));
        if (body != null)
            request.write(body);
        request.end();
    });
}

async function runRaw(fuzzCase: RawCase, target: FuzzTarget): Promise<string[]> {
    // Connection: close after the request line, so the server ends the connection once it has answered.
    const request = fuzzCase.request.replace(/^([^\r\n]*\r\n)/, "$1Connection: close\r\n");
    const {data, timedOut} = await new Promise<{data: Buffer, timedOut: boolean}>((resolve) => {
        const chunks: Buffer[] = [];
        const socket = net.connect(target.port, "127.0.0.1", () => socket.write(Buffer.from(request, "latin1")));
        const timer = setTimeout(() => {
            socket.destroy();
            resolve({data: Buffer.concat(chunks), timedOut: true});
        }, 10_000);
        socket.on("data", (chunk) => chunks.push(chunk));
        socket.on("error", () => undefined);
        socket.on("close", () => {
            clearTimeout(timer);
            resolve({data: Buffer.concat(chunks), timedOut: false});
        });
    });
    const text = data.toString("latin1");
    const status = /^HTTP\/1\.[01] (\d{3})/.exec(text);
    if (status == null)
        return timedOut && fuzzCase.note === "junk bytes" ? []
            : [`${fuzzCase.note}: ${timedOut ? "no answer in 10 s" : "connection closed without an answer"}`];
    const code = Number(status[1]);
    target.count(`${Math.floor(code / 100)}xx`);
    const split = text.indexOf("\r\n\r\n");
    const head = text.slice(0, split);
    let body = split < 0 ? "" : text.slice(split + 4);
    if (/\r\ntransfer-encoding: chunked/i.test(head))
        body = dechunk(body);
    if (code < 400)
        return code >= 500 ? [`${fuzzCase.note}: ${code}`] : [];
    return errorAnswerProblems(code, Buffer.from(body, "latin1").toString("utf8")).map((problem) => `${fuzzCase.note}: ${problem}`);
}

function dechunk(body: string): string {
    let out = "";
    let rest = body;
    for (;;) {
        const line = rest.indexOf("\r\n");
        const size = parseInt(rest.slice(0, line), 16);
        if (line < 0 || !(size > 0))
            return out;
        out += rest.slice(line + 2, line + 2 + size);
        rest = rest.slice(line + 2 + size + 2);
    }
}

const terminalTypes = new Set(["response.completed", "response.incomplete", "response.failed", "error"]);

async function runSocket(fuzzCase: SocketCase, target: FuzzTarget): Promise<string[]> {
    const problems: string[] = [];
    const url = `ws://127.0.0.1:${target.port}${fuzzCase.path}`;
    await new Promise<void>((resolve) => {
        let ws: WebSocket;
        try {
            ws = new WebSocket(url, {headers: fuzzCase.headers, perMessageDeflate: false});
        } catch {
            resolve();
            return;
        }
        let terminals = 0;
        let finished = false;
        const finish = (problem?: string) => {
            if (finished)
                return;
            finished = true;
            clearTimeout(timer);
            if (problem != null)
                problems.push(problem);
            if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING)
                ws.terminate();
            resolve();
        };
        const timer = setTimeout(() => finish(`WebSocket: ${terminals} of ${fuzzCase.messages.length} turns answered `
            + `within ${target.timeoutMs} ms`), target.timeoutMs);
        ws.on("unexpected-response", (_req, res) => {
            let body = "";
            res.on("data", (chunk) => body += chunk);
            res.on("end", () => {
                target.count(`ws handshake ${res.statusCode}`);
                problems.push(...errorAnswerProblems(res.statusCode ?? 0, body).map((problem) => `WebSocket handshake: ${problem}`));
                finish();
            });
        });
        ws.on("open", () => {
            for (const message of fuzzCase.messages)
                ws.send("binary" in message ? Buffer.from(message.binary) : target.live.resolve(message.text),
                    {binary: "binary" in message});
        });
        ws.on("message", (data) => {
            const event = parseJson(data.toString());
            if (event === undefined) {
                problems.push(`WebSocket message is not JSON: ${clip(data.toString())}`);
                return;
            }
            target.live.observe(event);
            problems.push(...eventProblems(event).map((problem) => `WebSocket: ${problem}`));
            if (fuzzCase.closeEarly) {
                finish();
                return;
            }
            const type = (event as {type?: string}).type ?? "";
            if (terminalTypes.has(type))
                target.count(`ws ${type}`);
            if (terminalTypes.has(type) && ++terminals === fuzzCase.messages.length) {
                ws.close();
                finish();
            }
        });
        ws.on("close",
            (code) => finish(`WebSocket closed by the server (${code}) after ${terminals} of ${fuzzCase.messages.length} turns`));
        ws.on("error", (error) => finish(`WebSocket error: ${error.message}`));
    });
    return problems;
}
