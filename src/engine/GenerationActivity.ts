import {Emitter} from "../protocol/Emitter.js";

/** What runs right now, and every token sampled since the engine was created. */
export type ActivitySnapshot = {
    /** Generations running at this moment. */
    active: number,
    /** Tokens sampled by running and finished generations, counted token by token as they come. */
    generatedTokens: number
};

/**
 * Counts generation as it happens, so a face (the VS Code status bar) can show live tokens/s while a
 * response streams; per-generation usage arrives later through `LlamaEngine.onGeneration`. Listeners run
 * synchronously on every token: they must only record, and throttle any rendering themselves.
 */
export class GenerationActivity {
    private active = 0;
    private generatedTokens = 0;
    private readonly changes = new Emitter<ActivitySnapshot>();

    public onChange(listener: (snapshot: ActivitySnapshot) => void): () => void {
        return this.changes.on(listener);
    }

    public snapshot(): ActivitySnapshot {
        return {active: this.active, generatedTokens: this.generatedTokens};
    }

    public begin(): void {
        this.active++;
        this.emit();
    }

    public tokens(count: number): void {
        if (count <= 0)
            return;
        this.generatedTokens += count;
        this.emit();
    }

    /** Ends one generation, whether it finished, failed or was aborted. */
    public end(): void {
        this.active = Math.max(0, this.active - 1);
        this.emit();
    }

    private emit(): void {
        // Runs on every token: no snapshot is built for nobody.
        if (this.changes.listening)
            this.changes.emit(this.snapshot());
    }
}
