import {spawn, type ChildProcess} from "node:child_process";
import path from "node:path";
import {repoRoot} from "../test/helpers/paths.js";

/** One streamed answer as the client saw it: `ms` the whole request, `ttftMs` to the first text delta, `streamMs` first to last. */
export type StreamResult = {tokens: number, input: number, cached: number, ms: number, ttftMs: number, streamMs: number, id: string};

/**
 * bench/sseClient.mjs in a process of its own at the lowest priority: the streaming client the benches time served
 * answers with, so its parsing neither shares the server's JavaScript thread nor takes a core the server needs.
 */
export class SseClientProcess {
    private constructor(private readonly child: ChildProcess) {}

    /** `lowPriority: false` runs the client at the server's priority (what a client on the same machine usually is). */
    public static start(url: string, apiKey: string, {lowPriority = true} = {}): SseClientProcess {
        const command = [process.execPath, path.join(repoRoot, "bench/sseClient.mjs"), url, apiKey];
        const [program, ...args] = lowPriority ? ["nice", "-n", "19", ...command] : command;
        return new SseClientProcess(spawn(program!, args, {stdio: ["ignore", "inherit", "inherit", "ipc"]}));
    }

    /**
     * Streams each body at once (concurrent requests) and resolves with every answer's figures. With `hold` the client
     * reads nothing until `resume()` (the server's writes wait in the socket buffers meanwhile).
     */
    public stream(bodies: Record<string, unknown>[], hold = false): Promise<StreamResult[]> {
        return new Promise((resolve, reject) => {
            this.child.once("message", (message: {results?: StreamResult[], error?: string}) => message.error != null
                ? reject(new Error(message.error)) : resolve(message.results!));
            this.child.send({bodies, hold});
        });
    }

    public async streamOnce(body: Record<string, unknown>, hold = false): Promise<StreamResult> {
        return (await this.stream([body], hold))[0]!;
    }

    /** Lets the client read the held answers. */
    public resume(): void {
        this.child.send({resume: true});
    }

    public stop(): void {
        this.child.kill();
    }
}
