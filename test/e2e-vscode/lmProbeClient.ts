import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import type {Workbench} from "./Workbench.js";

/** What the probe reports of a model (`vscode.lm.selectChatModels`). */
export type ProbeModel = {id: string, name: string, vendor: string, family: string, version: string, maxInputTokens: number};
export type ProbePart =
    | {type: "text", value: string}
    | {type: "toolCall", callId: string, name: string, input: Record<string, unknown>}
    | {type: "other"};
export type ProbeResult<T> = ({ok: true} & T) | {ok: false, error: string, code?: string};

/**
 * A command of the probe that was started: its answer (a failure it reports fails the test), or what it wrote, failure
 * included (`outcome`); null when nothing came in time (the probe died with its host).
 */
export type StartedProbeCommand<T> = {
    answer: (timeoutMs: number) => Promise<T | null>,
    outcome: (timeoutMs: number) => Promise<ProbeResult<T> | null>
};

/**
 * The LM Probe extension (test/e2e-vscode/lmProbe), another extension calling `vscode.lm`: its commands run from the
 * palette, read their arguments from `<workspace>/.lm-probe/<command>.args.json` and write what they saw to
 * `<command>.json` there.
 */
export class LmProbe {
    private readonly folder: string;

    public constructor(private readonly workbench: Workbench, workspace: string) {
        this.folder = path.join(workspace, ".lm-probe");
    }

    /** Runs a command and reads its answer; a failure it reports fails the test. */
    public async run<T>(command: string, title: string, timeoutMs = 60_000, args?: unknown): Promise<T> {
        const answer = await (await this.start<T>(command, title, args)).answer(timeoutMs);
        if (answer == null)
            assert.fail(`the probe wrote no ${command}.json within ${timeoutMs} ms`);
        return answer;
    }

    /** Runs a command from the palette without waiting for its answer. */
    public async start<T>(command: string, title: string, args?: unknown): Promise<StartedProbeCommand<T>> {
        const file = path.join(this.folder, `${command}.json`);
        fs.rmSync(file, {force: true});
        if (args !== undefined) {
            fs.mkdirSync(this.folder, {recursive: true});
            fs.writeFileSync(path.join(this.folder, `${command}.args.json`), JSON.stringify(args));
        }
        await this.workbench.runCommand(title);
        const outcome = async (timeoutMs: number): Promise<ProbeResult<T> | null> => {
            const deadline = Date.now() + timeoutMs;
            while (!fs.existsSync(file)) {
                if (Date.now() > deadline)
                    return null;
                await new Promise((resolve) => setTimeout(resolve, 100));
            }
            return JSON.parse(fs.readFileSync(file, "utf8")) as ProbeResult<T>;
        };
        return {
            outcome,
            answer: async (timeoutMs) => {
                const result = await outcome(timeoutMs);
                if (result != null && !result.ok)
                    assert.fail(`lmProbe.${command} failed: ${result.error} (${result.code ?? "no code"})`);
                return result;
            }
        };
    }
}
