import type {ReasoningEffort} from "../createRequest.js";

/**
 * Thought-token budgets per `reasoning.effort`, for models whose chat wrapper thinks (thought
 * segments). `none` renders the model's thinking-off variant. Without `reasoning` (or without an
 * effort) the budget is `medium`'s, as OpenAI's reasoning models default to medium.
 */
export const thoughtBudgets: Readonly<Record<ReasoningEffort, number>> = {
    none: 0,
    minimal: 64,
    low: 256,
    medium: 1024,
    high: 4096,
    xhigh: 8192
};

/**
 * The budget for a request. With `max_output_tokens` set, thinking may take at most half of it,
 * so an answer always has room after the thought (reasoning tokens count as output tokens).
 */
export function thoughtBudgetFor(effort: ReasoningEffort | null | undefined, maxOutputTokens: number | null): number {
    const budget = thoughtBudgets[effort ?? "medium"];
    if (budget === 0 || maxOutputTokens == null)
        return budget;
    return Math.max(1, Math.min(budget, Math.floor(maxOutputTokens / 2)));
}
