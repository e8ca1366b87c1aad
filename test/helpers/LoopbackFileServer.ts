import fs from "node:fs";
import http from "node:http";
import type {AddressInfo} from "node:net";
import path from "node:path";

export type LoopbackFileServerOptions = {
    /** The file served at `/<its name>`. */
    file: string,
    /** Bytes sent per second (in 16 KiB chunks); 0 sends as fast as the socket takes them. */
    bytesPerSecond?: number
};

/**
 * Serves one file over plain HTTP on 127.0.0.1, with HEAD, byte ranges (downloaders resume and split with
 * them) and an optional rate limit, so a download takes long enough to watch its progress or cancel it.
 * Stands in for a model host: nothing leaves the machine.
 */
export class LoopbackFileServer {
    /** Every request as `METHOD range` (range "-" when absent), for assertions about what a client asked. */
    public readonly requests: string[] = [];
    private readonly server: http.Server;
    private readonly size: number;
    private readonly name: string;
    private bytesPerSecond: number;

    public constructor(private readonly options: LoopbackFileServerOptions) {
        this.size = fs.statSync(options.file).size;
        this.name = path.basename(options.file);
        this.bytesPerSecond = options.bytesPerSecond ?? 0;
        this.server = http.createServer((request, response) => this.handle(request, response));
    }

    public async start(): Promise<void> {
        await new Promise<void>((resolve, reject) => {
            this.server.once("error", reject);
            this.server.listen(0, "127.0.0.1", () => resolve());
        });
    }

    public get url(): string {
        const {port} = this.server.address() as AddressInfo;
        return `http://127.0.0.1:${port}/${this.name}`;
    }

    public setRate(bytesPerSecond: number): void {
        this.bytesPerSecond = bytesPerSecond;
    }

    public async stop(): Promise<void> {
        this.server.closeAllConnections();
        await new Promise<void>((resolve) => this.server.close(() => resolve()));
    }

    private handle(request: http.IncomingMessage, response: http.ServerResponse): void {
        this.requests.push(`${request.method} ${request.headers.range ?? "-"}`);
        if (request.url?.split("?")[0] !== `/${this.name}`) {
            response.writeHead(404).end();
            return;
        }
        const range = parseRange(request.headers.range, this.size);
        if (range === "unsatisfiable") {
            response.writeHead(416, {"content-range": `bytes */${this.size}`}).end();
            return;
        }
        const [start, end] = range ?? [0, this.size - 1];
        response.writeHead(range != null ? 206 : 200, {
            "content-type": "application/octet-stream",
            "content-length": String(end - start + 1),
            "accept-ranges": "bytes",
            "content-disposition": `attachment; filename="${this.name}"`,
            ...(range != null ? {"content-range": `bytes ${start}-${end}/${this.size}`} : {})
        });
        if (request.method === "HEAD") {
            response.end();
            return;
        }
        void this.send(response, start, end);
    }

    private async send(response: http.ServerResponse, start: number, end: number): Promise<void> {
        const chunk = 16 * 1024;
        const handle = await fs.promises.open(this.options.file, "r");
        // A client that has what it wanted (headers, a cancelled download) closes the socket mid-body.
        let closed = false;
        response.once("close", () => closed = true);
        try {
            for (let offset = start; offset <= end && !closed; offset += chunk) {
                const length = Math.min(chunk, end - offset + 1);
                const buffer = Buffer.alloc(length);
                await handle.read(buffer, 0, length, offset);
                if (!response.write(buffer) && !closed)
                    await new Promise((resolve) => {
                        const done = () => {
                            response.off("drain", done).off("close", done);
                            resolve(undefined);
                        };
                        response.on("drain", done).on("close", done);
                    });
                if (this.bytesPerSecond > 0)
                    await new Promise((resolve) => setTimeout(resolve, (length / this.bytesPerSecond) * 1000));
            }
            response.end();
        } finally {
            await handle.close();
        }
    }
}

/** `bytes=a-b`, `bytes=a-` and `bytes=-n`; one range only (what downloaders send). */
function parseRange(header: string | undefined, size: number): [number, number] | "unsatisfiable" | null {
    const match = header == null ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim());
    if (match == null)
        return null;
    const [, from, to] = match;
    const start = from === "" ? size - Number(to) : Number(from);
    const end = from === "" || to === "" ? size - 1 : Math.min(Number(to), size - 1);
    if (Number.isNaN(start) || start < 0 || start > end)
        return "unsatisfiable";
    return [start, end];
}
