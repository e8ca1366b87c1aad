import type {PromptProgress} from "../../engine/types.js";

/** Prompt evaluation under way, summed over the responses evaluating one now. */
export type PromptProgressView = {evaluated: number, total: number, responses: number};

/**
 * The prompts being evaluated right now, by response, from the engine's step-by-step reports. A prompt leaves when
 * it is reported all in (at the first output token, whose decode evaluates the prompt's last step), and all leave when
 * nothing generates any more (an aborted evaluation reports no end).
 */
export class PromptProgressTracker {
    private readonly prompts = new Map<string, PromptProgress>();

    public record(responseId: string, progress: PromptProgress): void {
        if (progress.evaluated >= progress.total)
            this.prompts.delete(responseId);
        else
            this.prompts.set(responseId, progress);
    }

    public clear(): void {
        this.prompts.clear();
    }

    public view(): PromptProgressView | null {
        if (this.prompts.size === 0)
            return null;
        let evaluated = 0;
        let total = 0;
        for (const progress of this.prompts.values()) {
            evaluated += progress.evaluated;
            total += progress.total;
        }
        return {evaluated, total, responses: this.prompts.size};
    }
}
