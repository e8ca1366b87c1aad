/** Reads an AI SDK `streamText` result's full stream: the text of its deltas and the errors it carried. */
export async function readFullStream(
    result: {fullStream: AsyncIterable<{type: string, text?: string, error?: unknown}>}
): Promise<{text: string, errors: unknown[]}> {
    let text = "";
    const errors: unknown[] = [];
    for await (const part of result.fullStream) {
        if (part.type === "text-delta")
            text += part.text ?? "";
        if (part.type === "error")
            errors.push(part.error);
    }
    return {text, errors};
}
