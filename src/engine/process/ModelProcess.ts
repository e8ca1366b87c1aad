import {fork, type ChildProcess} from "node:child_process";
import path from "node:path";
import {fileURLToPath} from "node:url";
import type {LoadProgress, GenerationEvent, PromptProgress} from "../types.js";
import {
    receivedError, type CallMessage, type CallRequest, type CallResults, type ChildMessage, type ModelProcessInit, type ParentMessage,
    type WarmBinding
} from "./modelProcessProtocol.js";
import {defaultSilenceLimitMs, heartbeatIntervalMs, ProcessWatchdog} from "./ProcessWatchdog.js";

export type ModelProcessHandlers = {
    onMessage: (message: ChildMessage) => void,
    /**
     * The error a call fails with when the process has ended or its channel is closed (`expected`: `dispose` or `kill`
     * asked for it). Builds the error only: it may run more than once for one end.
     */
    failure: (exit: ProcessExit, expected: boolean) => Error,
    /** The process has ended; called once, before the calls still waiting fail. */
    onExit?: (exit: ProcessExit, expected: boolean) => void,
    log?: (line: string) => void
};

/** What one call listens to while it runs, beyond its answer. */
export type CallListeners = {
    onProgress?: (progress: LoadProgress) => void,
    onEvent?: (event: GenerationEvent) => void,
    onPrompt?: (progress: PromptProgress) => void,
    onQueued?: () => void
};

type Pending = CallListeners & {resolve: (value: unknown) => void, reject: (error: Error) => void};

/** How the process ended when nobody asked it to: its exit code or signal, and the last lines it wrote to stderr. */
export type ProcessExit = {code: number | null, signal: NodeJS.Signals | null, stderr: string};

/** Lines of the model process's stderr kept to say why it ended. */
const stderrTailBytes = 2000;
/** How long a model process has to end after `dispose` before it is killed. */
const disposeGraceMs = 10_000;
/**
 * How long a cancelled call waits for the process to confirm it. A live process answers within milliseconds (its
 * generation stops at the next token); past this the call fails `aborted` on this side anyway, so that its request
 * ends, its model's `in_flight` drops and loads waiting for room go on, whatever the process does.
 */
const abortGraceMs = 2000;

/**
 * One running model process and its calls: each call a numbered message answered by one `result` or `error`, the
 * messages in between (progress, events) handed to that call's listeners; every other message to `onMessage`. When the
 * process ends, `onExit` hears it and each call still waiting fails with `failure(exit)`.
 */
export class ModelProcess {
    private readonly child: ChildProcess;
    private readonly pending = new Map<number, Pending>();
    private nextCall = 0;
    private stderrTail = "";
    private stopping = false;
    private handlers: ModelProcessHandlers;
    private readonly watchdog: ProcessWatchdog;
    public readonly exited: Promise<ProcessExit>;

    /**
     * Starts the process, which loads node-llama-cpp's native backend (`binding`: the library's GPU choice and threads)
     * at once, before its model is known: a spare started ahead (`SpareModelProcess`) is adopted by the next model to load.
     * A process that sends nothing, not even its heartbeat, for `silenceLimitMs` is killed: its calls fail as a crash's do.
     */
    public constructor(binding: WarmBinding, handlers: ModelProcessHandlers, silenceLimitMs = defaultSilenceLimitMs) {
        this.handlers = handlers;
        const {entry, execArgv} = processEntry();
        this.child = fork(entry, [], {
            execArgv,
            // In the editor, process.execPath is the editor's Electron, which runs as Node only when asked to.
            env: {...process.env, ELECTRON_RUN_AS_NODE: "1"},
            serialization: "advanced",
            stdio: ["ignore", "pipe", "pipe", "ipc"]
        });
        // Its output is logged as it comes, and never holds the server's process open.
        for (const stream of [this.child.stdout, this.child.stderr])
            (stream as {unref?: () => void} | null)?.unref?.();
        this.child.stdout?.on("data", (chunk: Buffer) => this.logLines(chunk));
        this.child.stderr?.on("data", (chunk: Buffer) => {
            this.stderrTail = (this.stderrTail + chunk.toString()).slice(-stderrTailBytes);
            this.logLines(chunk);
        });
        this.child.on("message", (message: ChildMessage) => this.receive(message));
        this.watchdog = new ProcessWatchdog(silenceLimitMs, (silentMs) => this.killSilent(silentMs));
        this.exited = new Promise((resolve) => {
            // "error" without "exit" is a process that never started (a missing entry file, no permission to run).
            this.child.once("error", (error) => {
                this.stderrTail += error.message;
                if (this.child.exitCode == null && this.child.pid == null)
                    resolve(this.ended(null, null));
            });
            this.child.once("exit", (code, signal) => resolve(this.ended(code, signal)));
        });
        this.child.send({type: "warm", binding} satisfies ParentMessage);
        this.updateRef();
    }

    /** Gives the process its model's engine settings and the handlers of the engine that adopts it (once). */
    public adopt(init: ModelProcessInit, handlers: ModelProcessHandlers): this {
        this.handlers = handlers;
        this.post({type: "init", options: init});
        return this;
    }

    /** Whether it still runs and nobody asked it to end. */
    public get usable(): boolean {
        return this.child.connected && !this.stopping;
    }

    public get pid(): number | undefined {
        return this.child.pid;
    }

    public call<M extends CallRequest>(message: M, listeners: CallListeners = {}, signal?: AbortSignal): Promise<CallResults[M["type"]]> {
        const call = this.nextCall++;
        return new Promise<CallResults[M["type"]]>((resolve, reject) => {
            const cancelled = () => receivedError({message: "The request was cancelled.", kind: "aborted"});
            if (signal?.aborted)
                return reject(cancelled());
            let unconfirmed: NodeJS.Timeout | undefined;
            const onAbort = () => {
                this.post({type: "abort", call});
                unconfirmed = setTimeout(() => this.finish(call, {reject: cancelled()}), abortGraceMs);
            };
            signal?.addEventListener("abort", onAbort, {once: true});
            const settle = () => {
                clearTimeout(unconfirmed);
                signal?.removeEventListener("abort", onAbort);
            };
            this.pending.set(call, {
                ...listeners,
                resolve: (value) => {settle(); resolve(value as CallResults[M["type"]]);},
                reject: (error) => {settle(); reject(error);}
            });
            this.updateRef();
            if (!this.post({...message, call} as CallMessage))
                this.finish(call, {reject: this.handlers.failure({code: null, signal: null, stderr: this.stderrTail}, this.stopping)});
        });
    }

    /** Sends a message that has no answer (an abort, a release); false when the process is gone. */
    public post(message: ParentMessage): boolean {
        if (!this.child.connected)
            return false;
        this.child.send(message);
        return true;
    }

    /** Asks the process to free its model and end; kills it if it has not ended in time. */
    public async dispose(): Promise<void> {
        if (this.stopping)
            return void await this.exited;
        this.stopping = true;
        // A live process ends in well under a second, heartbeats going on while llama.cpp frees its memory; one already
        // silent (stopped, hung) is not waited for: another model may be waiting for this one's room.
        this.watchdog.tighten(3 * heartbeatIntervalMs);
        const killer = setTimeout(() => this.child.kill("SIGKILL"), disposeGraceMs);
        this.call({type: "dispose"}).catch(() => undefined);
        await this.exited;
        clearTimeout(killer);
    }

    /** Ends the process at once (a spare no longer wanted, a dispose that did not finish). */
    public kill(signal: NodeJS.Signals = "SIGKILL"): void {
        // Whoever kills it may wait for `exited`: the process keeps the server's open until it has ended.
        this.stopping = true;
        this.child.ref();
        this.child.kill(signal);
    }

    /**
     * It stopped answering (stopped, or blocked in native code): ended as a crash (its calls fail `model_crashed`), or as
     * asked when it was being disposed.
     */
    private killSilent(silentMs: number): void {
        if (this.child.exitCode != null)
            return;
        const line = `it answered nothing for ${Math.round(silentMs / 1000)} s and was ended by the server`;
        this.stderrTail += `\n${line}`;
        this.handlers.log?.(line);
        this.child.ref();
        this.child.kill("SIGKILL");
    }

    private receive(message: ChildMessage): void {
        this.watchdog.heard();
        if (message.type === "heartbeat")
            return;
        if (message.type === "result" || message.type === "error") {
            this.handlers.onMessage(message);
            this.finish(message.call, message.type === "result" ? {resolve: message.value} : {reject: receivedError(message.error)});
            return;
        }
        const pending = "call" in message ? this.pending.get(message.call) : undefined;
        if (message.type === "progress")
            pending?.onProgress?.(message.progress);
        else if (message.type === "event")
            pending?.onEvent?.(message.event);
        else if (message.type === "prompt")
            pending?.onPrompt?.(message.progress);
        else if (message.type === "queued") {
            this.handlers.onMessage(message);
            pending?.onQueued?.();
        } else
            this.handlers.onMessage(message);
    }

    private finish(call: number, outcome: {resolve: unknown} | {reject: Error}): void {
        const pending = this.pending.get(call);
        this.pending.delete(call);
        this.updateRef();
        if (pending == null)
            return;
        if ("reject" in outcome)
            pending.reject(outcome.reject);
        else
            pending.resolve(outcome.resolve);
    }

    private ended(code: number | null, signal: NodeJS.Signals | null): ProcessExit {
        this.watchdog.stop();
        const exit = {code, signal, stderr: this.stderrTail.trim()};
        this.handlers.onExit?.(exit, this.stopping);
        const error = this.handlers.failure(exit, this.stopping);
        for (const call of [...this.pending.keys()])
            this.finish(call, {reject: error});
        return exit;
    }

    /**
     * The process and its channel keep the server's process alive only while a call waits on them: an idle model
     * process must not hold a headless run (or a test) open, and a script awaiting a load must not exit under it.
     */
    private updateRef(): void {
        const channel = this.child.channel as {ref?: () => void, unref?: () => void} | null | undefined;
        if (this.pending.size > 0) {
            this.child.ref();
            channel?.ref?.();
        } else {
            this.child.unref();
            channel?.unref?.();
        }
    }

    private logLines(chunk: Buffer): void {
        for (const line of chunk.toString().split("\n"))
            if (line.trim() !== "")
                this.handlers.log?.(line);
    }
}

/**
 * The model process's entry: built beside the CommonJS bundles as dist/modelProcessMain.js (run as plain Node); from
 * source (the tests run through tsx) the TypeScript file beside this one, under tsx's loader.
 */
function processEntry(): {entry: string, execArgv: string[]} {
    // tsx runs the sources as CommonJS too, so `__filename` is set either way; its extension tells them apart.
    const self = typeof __filename === "string" ? __filename : fileURLToPath(import.meta.url);
    if (self.endsWith(".ts"))
        return {entry: path.join(path.dirname(self), "modelProcessMain.ts"), execArgv: ["--import", "tsx"]};
    return {entry: path.join(path.dirname(self), "modelProcessMain.js"), execArgv: []};
}
