import fs from "node:fs";
import path from "node:path";
import {hugeArrayGguf, hugeEntryCountGguf} from "../test/helpers/craftedGguf.js";
import type {SoakStats} from "./SoakStats.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the chaos agent does, in turn, while the clients run. */
const chaosActions = ["unload", "load", "userUnload", "killProcess", "badFile", "stopProcess", "pinAndRelease"] as const;
type ChaosAction = typeof chaosActions[number];

type StatusModel = {id: string, status: string, process_id?: number, failure?: string};

/**
 * `npm run soak -- --chaos`: beside the clients, the operator's key and the machine misbehave around the model library
 * (the fourth audit's findings, together): unloads and loads with every `keep_alive` racing the requests, a user's key
 * trying to unload (403), a model's process killed (`SIGKILL`) or stopped (`SIGSTOP` for longer than the server's
 * silence limit, then resumed if still there), crafted GGUF files dropped into the models folder and removed. Each
 * action checks what it must: a refusal is a 403, a bad file is listed `failed` with its reason, a stopped process is
 * ended by the server. A check that does not hold counts as an unexpected error.
 */
export class SoakChaos {
    public readonly counts = new Map<ChaosAction, number>(chaosActions.map((action) => [action, 0]));
    /** Model processes the chaos killed, stopped, and stopped that the server then ended (its silence limit). */
    public killed = 0;
    public stopped = 0;
    public stoppedAndEnded = 0;
    private badFiles = 0;

    public constructor(private readonly options: {
        origin: string, adminKey: string, userKey: string, modelsDir: string, models: readonly string[], stats: SoakStats,
        pauseMs: number
    }) {}

    public async run(until: number): Promise<void> {
        for (let turn = 0; Date.now() < until; turn++) {
            const action = chaosActions[turn % chaosActions.length]!;
            this.counts.set(action, this.counts.get(action)! + 1);
            try {
                await this[action]();
            } catch (error) {
                this.options.stats.fail("chaos", `${action}: ${(error as Error).message}`);
            }
            await sleep(this.options.pauseMs);
        }
    }

    public summary(): string {
        const done = [...this.counts].map(([action, count]) => `${action} ${count}`).join(", ");
        return `chaos: ${done}; model processes killed ${this.killed}, stopped ${this.stopped}, of which ended by the server `
            + `${this.stoppedAndEnded}`;
    }

    private model(): string {
        return this.options.models[Math.floor(Math.random() * this.options.models.length)]!;
    }

    private async post(key: string, route: string, body: unknown = {}): Promise<Response> {
        return fetch(`${this.options.origin}/v1${route}`, {
            method: "POST", headers: {"authorization": `Bearer ${key}`, "content-type": "application/json"},
            body: JSON.stringify(body), signal: AbortSignal.timeout(120_000)
        });
    }

    private async models(): Promise<StatusModel[]> {
        const response = await fetch(`${this.options.origin}/v1/status`, {headers: {authorization: `Bearer ${this.options.adminKey}`}});
        return ((await response.json()) as {models: {data: StatusModel[]}}).models.data;
    }

    /** The operator unloads a model while requests for it run (it waits for them) and others arrive. */
    private async unload(): Promise<void> {
        const response = await this.post(this.options.adminKey, `/models/${this.model()}/unload`);
        if (response.status !== 200)
            throw new Error(`unload → ${response.status} ${(await response.text()).slice(0, 200)}`);
    }

    /** The operator loads a model with a keep_alive of 0, a few seconds or the operator's default. */
    private async load(): Promise<void> {
        const keepAlive = [0, "3s", null][Math.floor(Math.random() * 3)];
        const response = await this.post(this.options.adminKey, `/models/${this.model()}/load`, {keep_alive: keepAlive});
        // A load may meet a model the chaos just ended: its 5xx is a crash's answer, not a failure of the server.
        if (response.status !== 200 && response.status < 500)
            throw new Error(`load → ${response.status} ${(await response.text()).slice(0, 200)}`);
    }

    /** A user's key may neither unload nor pin. */
    private async userUnload(): Promise<void> {
        for (const [route, body] of [[`/models/${this.model()}/unload`, {}], [`/models/${this.model()}/load`, {keep_alive: -1}]] as const) {
            const response = await this.post(this.options.userKey, route, body);
            if (response.status !== 403)
                throw new Error(`${route} from a user's key → ${response.status}, not 403`);
        }
    }

    /** Pins a model, then lets it go idle again (keep_alive 0 through a load). */
    private async pinAndRelease(): Promise<void> {
        const model = this.model();
        for (const keepAlive of [-1, 0]) {
            const response = await this.post(this.options.adminKey, `/models/${model}/load`, {keep_alive: keepAlive});
            if (response.status !== 200 && response.status < 500)
                throw new Error(`load keep_alive ${keepAlive} → ${response.status}`);
        }
    }

    /** A loaded model's process (one is loaded first when none is), or undefined when the load met the chaos. */
    private async loadedProcess(): Promise<number | undefined> {
        const loaded = () => this.models().then((models) => models.find((model) => model.status === "loaded" && model.process_id != null));
        const victim = await loaded() ?? (await this.post(this.options.adminKey, `/models/${this.model()}/load`), await loaded());
        return victim?.process_id;
    }

    /** A native crash, as an abort inside llama.cpp would be. */
    private async killProcess(): Promise<void> {
        const pid = await this.loadedProcess();
        if (pid != null && signal(pid, "SIGKILL"))
            this.killed++;
    }

    /** A native hang: the process neither answers nor ends until the server's silence limit ends it. */
    private async stopProcess(): Promise<void> {
        const pid = await this.loadedProcess();
        if (pid == null || !signal(pid, "SIGSTOP"))
            return;
        this.stopped++;
        const deadline = Date.now() + 20_000;
        while (Date.now() < deadline && alive(pid))
            await sleep(250);
        if (alive(pid)) {
            signal(pid, "SIGCONT");
            throw new Error(`a model process stopped for 20 s (pid ${pid}) was not ended by the server`);
        }
        this.stoppedAndEnded++;
    }

    /** A crafted header in the models folder: listed `failed` with its reason within seconds, then removed. */
    private async badFile(): Promise<void> {
        const id = `chaos-bad-${this.badFiles++}`;
        const file = path.join(this.options.modelsDir, `${id}.gguf`);
        fs.writeFileSync(file, this.badFiles % 2 === 0 ? hugeArrayGguf() : hugeEntryCountGguf());
        try {
            const deadline = Date.now() + 15_000;
            for (;;) {
                const listed = (await this.models()).find((model) => model.id === id);
                if (listed?.status === "failed" && /GGUF/.test(listed.failure ?? ""))
                    return;
                if (Date.now() > deadline)
                    throw new Error(`a crafted GGUF was listed ${JSON.stringify(listed)} after 15 s, not failed`);
                await sleep(250);
            }
        } finally {
            fs.rmSync(file, {force: true});
        }
    }
}

function signal(pid: number, name: NodeJS.Signals): boolean {
    try {
        process.kill(pid, name);
        return true;
    } catch {
        return false;
    }
}

/** Whether the process runs (a zombie, ended but not yet reaped by the server, counts as ended). */
function alive(pid: number): boolean {
    try {
        return !/^State:\s+Z/m.test(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    } catch {
        return false;
    }
}
