import type {Token} from "node-llama-cpp";

/** Tokens a chat chunk may carry that are not the sampled ones (see `alignAnswer`), at most. */
const maxRetokenizedHead = 8;

/**
 * The answer as the sequence holds it, to be scored: where it starts in the context and its tokens. Usually the
 * chunks' tokens sit there as they are (`answerStart`). But node-llama-cpp's chat may hand the first chunk with tokens
 * of its own, the text it held back (to look for a segment's opening trigger) tokenized again: stories260K-qwen's
 * `Once` came as [441, 416, 411] where the model had sampled [385], which left such an answer with no logprobs at all.
 * Then the rest of the answer is found in the context and its head is taken from the context, as sampled, when it
 * reads as the same text (`detokenize`; a leading space aside).
 */
export function alignAnswer(context: readonly Token[], answer: readonly Token[], lastEvaluated: boolean,
    detokenize: (tokens: readonly Token[]) => string): {start: number, answer: readonly Token[]} | undefined {
    const start = answerStart(context, answer, lastEvaluated);
    if (start != null)
        return {start, answer};
    for (let head = 1; head <= Math.min(maxRetokenizedHead, answer.length - 2); head++) {
        const tail = answer.slice(head);
        const tailStart = answerStart(context, tail, lastEvaluated);
        if (tailStart == null)
            continue;
        const text = detokenize(answer.slice(0, head)).trimStart();
        for (let from = tailStart - 1; from >= Math.max(1, tailStart - 2 * head - 2); from--) {
            const sampled = context.slice(from, tailStart);
            if (detokenize(sampled).trimStart() === text)
                return {start: from, answer: [...sampled, ...tail]};
        }
        return undefined;
    }
    return undefined;
}

/**
 * Where the answer starts in the sequence's context: the latest position where its evaluated tokens sit (tokens of a
 * partly matched stop trigger or a following call may come after it). Never 0: the answer follows a prompt.
 *
 * A cut answer (`lastEvaluated` false) ends the context, its last token not evaluated; unless a batch evaluated it
 * before the limit was seen (it happens under concurrent load): then the whole answer ends the context. And when the
 * limit cut a character in the middle (a curly quote is two or three tokens of some vocabularies), the chat API keeps
 * the character's first tokens back, never an answer chunk: they sit in the context after the answer. So the answer is
 * looked for from the end, at least all its tokens but the last present.
 */
export function answerStart(context: readonly Token[], answer: readonly Token[], lastEvaluated: boolean): number | undefined {
    const sitsAt = (start: number, length: number) =>
        start >= 1 && answer.slice(0, length).every((token, index) => context[start + index] === token);
    const present = lastEvaluated ? answer.length : answer.length - 1;
    for (let start = context.length - present; start >= 1; start--) {
        if (sitsAt(start, present))
            return start;
    }
    return undefined;
}
