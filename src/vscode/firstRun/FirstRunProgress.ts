import {walkthroughKeys} from "../manifest/viewIds.js";

/** The first-run walkthrough's steps, each done when its context key turns true (package.json `completionEvents`). */
export const walkthroughId = "local-responses.local-responses#firstRun";

export type FirstRunKeys = Record<typeof walkthroughKeys[keyof typeof walkthroughKeys], boolean>;

/**
 * What a person did: copied the endpoint or the key, had Configure Codex… or Configure Claude Code… write or show its
 * block, saw a response in the inspector.
 */
export type FirstRunEvent = "endpointCopied" | "keyCopied" | "codexConfigured" | "claudeConfigured" | "responseSeen";

/** What a feature that ticks a walkthrough step needs of it. */
export type FirstRunRecorder = {record(event: FirstRunEvent): void};

/**
 * What a new user has done, from real events: a model file known (downloaded or picked), a model loaded, a client
 * given the endpoint and key (Configure Codex or Configure Claude Code wrote or showed its block, or both were
 * copied), a response seen in the inspector, and a second model served beside the first. vscode-free; the face turns
 * changes into context keys.
 */
export class FirstRunProgress {
    private hasModelFile = false;
    private modelLoaded = false;
    private servedModels = 0;
    private readonly events = new Set<FirstRunEvent>();

    public modelFiles(count: number): void {
        this.hasModelFile ||= count > 0;
    }

    public modelState(loaded: boolean): void {
        this.modelLoaded = loaded;
        this.hasModelFile ||= loaded;
    }

    /** How many models the server lists now (a model library's, the upstreams' beside it; one model alone: 1). */
    public modelsServed(count: number): void {
        this.servedModels = count;
    }

    public record(event: FirstRunEvent): void {
        this.events.add(event);
    }

    public keys(): FirstRunKeys {
        return {
            [walkthroughKeys.hasModelFile]: this.hasModelFile,
            [walkthroughKeys.modelLoaded]: this.modelLoaded,
            [walkthroughKeys.clientConnected]: this.events.has("codexConfigured") || this.events.has("claudeConfigured")
                || (this.events.has("endpointCopied") && this.events.has("keyCopied")),
            [walkthroughKeys.sawResponseInInspector]: this.events.has("responseSeen"),
            [walkthroughKeys.servesSeveralModels]: this.servedModels >= 2
        };
    }
}
