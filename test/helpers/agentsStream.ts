import type {RunStreamEvent} from "@openai/agents";

/** Reads an Agents SDK streamed run (`run(…, {stream: true})`) to its end: the text of its raw `output_text_delta` events, in order. */
export async function readAgentDeltas(result: AsyncIterable<RunStreamEvent> & {readonly completed: Promise<void>}): Promise<string> {
    let deltas = "";
    for await (const event of result)
        if (event.type === "raw_model_stream_event" && event.data.type === "output_text_delta")
            deltas += event.data.delta;
    await result.completed;
    return deltas;
}
