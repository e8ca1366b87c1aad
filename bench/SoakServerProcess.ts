import {fork, type ChildProcess} from "node:child_process";
import path from "node:path";
import {fileURLToPath} from "node:url";
import type {MemorySample, SoakServerOptions} from "./soakServer.js";

/** The soak's server process (bench/soakServer.ts) and its IPC requests: memory samples, heap snapshots, stop. */
export class SoakServerProcess {
    private nextId = 1;
    private readonly pending = new Map<number, (message: any) => void>();

    private constructor(public readonly child: ChildProcess, public readonly origin: string, private readonly gc: boolean,
        /** The library's models folder (a library soak), where the chaos agent drops crafted files. */
        public readonly modelsDir: string | undefined) {
        child.on("message", (message: {id?: number}) => {
            if (message.id != null)
                this.pending.get(message.id)?.(message);
        });
    }

    /** Starts bench/soakServer.ts; `gc` gives it --expose-gc (samples after a full GC), `mallocArenaMax` sets MALLOC_ARENA_MAX. */
    public static start(options: SoakServerOptions, memory: {gc: boolean, mallocArenaMax?: string}): Promise<SoakServerProcess> {
        const script = path.join(path.dirname(fileURLToPath(import.meta.url)), "soakServer.ts");
        const env = {...process.env, ...(memory.mallocArenaMax == null ? {} : {MALLOC_ARENA_MAX: memory.mallocArenaMax})};
        const child = fork(script, [JSON.stringify(options)],
            {execArgv: ["--import", "tsx", ...(memory.gc ? ["--expose-gc"] : [])], env, stdio: ["ignore", "inherit", "pipe", "ipc"]});
        child.stderr!.on("data", (chunk: Buffer) => {
            for (const line of chunk.toString().split("\n").filter((entry) => /error|warn/i.test(entry)))
                process.stdout.write(`  ${line.slice(0, 300)}\n`);
        });
        return new Promise((resolve, reject) => {
            child.once("exit", (code) => reject(new Error(`soak server exited with ${code} before it was ready`)));
            child.once("message", (message: {type?: string, url?: string, modelsDir?: string}) => {
                if (message.type === "ready")
                    resolve(new SoakServerProcess(child, message.url!.replace(/\/v1$/, ""), memory.gc, message.modelsDir));
            });
        });
    }

    public request<T>(message: object, timeoutMs = 120_000): Promise<T> {
        const id = this.nextId++;
        return new Promise((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`server did not answer ${JSON.stringify(message)}`)), timeoutMs);
            this.pending.set(id, (answer) => {
                clearTimeout(timer);
                this.pending.delete(id);
                resolve(answer);
            });
            this.child.send({id, ...message});
        });
    }

    public async sample(): Promise<MemorySample> {
        return (await this.request<{sample: MemorySample}>({type: "sample", gc: this.gc})).sample;
    }

    public async stop(): Promise<void> {
        await this.request({type: "stop"}, 30_000).catch(() => {
            this.child.kill("SIGKILL");
        });
    }
}
