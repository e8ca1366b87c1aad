import type {
    ChatEngine, ChatTurn, EngineLease, EngineState, EngineStats, GenerationEvent, GenerationRequest, GenerationResult, ModelInfo,
    PromptShape, ToolSpec
} from "../../src/engine/types.js";

/** One scripted generation: the events it plays, in order, and how it ends. */
export type Script = {
    events: GenerationEvent[],
    stopReason?: GenerationResult["stopReason"],
    /** Calls in the result (defaults to those the events build). */
    calls?: GenerationResult["calls"],
    /** The stop sequence the answer ended at (as the engine reports one it cut the text at). */
    stopSequence?: string
};

/**
 * A `ChatEngine` that plays given generation events instead of running a model: for fast tests of pure logic (the
 * assembler, the service, validation, the stores) that need no model. Every feature also has real-engine tests;
 * this never replaces them. It records the requests it was given.
 */
export class ScriptedEngine implements ChatEngine {
    public readonly kind = "local";
    public readonly state: EngineState = "ready";
    public readonly model: ModelInfo = {
        id: "scripted", path: "/dev/null", contextSize: 4096, sequences: 1, trainContextSize: 4096, chatWrapper: "scripted"
    };
    public readonly requests: GenerationRequest[] = [];
    private readonly scripts: Script[];

    public constructor(...scripts: Script[]) {
        this.scripts = scripts;
    }

    public async acquire(turns: ChatTurn[], _tools: ToolSpec[], _signal?: AbortSignal, _shape?: PromptShape): Promise<EngineLease> {
        const promptTokens = countWords(turns);
        return {
            promptTokens,
            cachedPrefixTokens: 0,
            generate: (request) => this.play(request, promptTokens),
            release: () => undefined
        };
    }

    public async generate(request: GenerationRequest): Promise<GenerationResult> {
        return (await this.acquire(request.turns, request.tools ?? [])).generate(request);
    }

    public async countPromptTokens(turns: ChatTurn[]): Promise<number> {
        return countWords(turns);
    }

    public stats(): EngineStats {
        return {sequencesBusy: 0, sequencesTotal: 1, queueDepth: 0, queueLimit: 0};
    }

    private async play(request: GenerationRequest, promptTokens: number): Promise<GenerationResult> {
        this.requests.push(request);
        const script = this.scripts.shift();
        if (script == null)
            throw new Error("ScriptedEngine: no script left for this generation");
        let text = "";
        const calls = new Map<number, {name: string, arguments: string}>();
        for (const event of script.events) {
            request.onEvent?.(event);
            if (event.type === "text")
                text += event.text;
            else if (event.type === "call.start")
                calls.set(event.index, {name: event.name, arguments: ""});
            else if (event.type === "call.delta")
                calls.get(event.index)!.arguments += event.delta;
        }
        const resultCalls = script.calls ?? [...calls.values()];
        return {
            stopReason: script.stopReason ?? (resultCalls.length > 0 ? "tool_calls" : "stop"),
            text,
            calls: resultCalls,
            usage: {inputTokens: promptTokens, cachedTokens: 0, outputTokens: script.events.length, reasoningTokens: 0},
            timeToFirstTokenMs: 0,
            ...(script.stopSequence != null ? {stopSequence: script.stopSequence} : {})
        };
    }
}

function countWords(turns: ChatTurn[]): number {
    return turns.map((turn) => (turn.role === "model" ? turn.parts.map((part) => (part.type === "call" ? part.arguments : part.text))
        .join(" ") : turn.text)).join(" ").split(/\s+/).length;
}
