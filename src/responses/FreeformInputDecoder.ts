/**
 * A freeform (`custom`) tool is offered to the model as a function taking `{"input": string}`;
 * this decodes that string out of the arguments JSON as it is generated, so the tool's input can
 * stream as `response.custom_tool_call_input.delta` events. Escapes split across chunks are kept
 * until complete. The decoded deltas add up to the `input` of the final item.
 */
export class FreeformInputDecoder {
    private buffer = "";
    private state: "before" | "inside" | "after" = "before";

    /** Feeds a chunk of the arguments JSON; returns the newly decoded input text (maybe ""). */
    public push(chunk: string): string {
        if (this.state === "after")
            return "";
        this.buffer += chunk;
        if (this.state === "before") {
            const start = /"input"\s*:\s*"/.exec(this.buffer);
            if (start == null)
                return "";
            this.buffer = this.buffer.slice(start.index + start[0].length);
            this.state = "inside";
        }
        return this.decode();
    }

    private decode(): string {
        let out = "";
        let index = 0;
        const text = this.buffer;
        while (index < text.length) {
            const char = text[index]!;
            if (char === "\"") {
                this.state = "after";
                this.buffer = "";
                return out;
            }
            if (char !== "\\") {
                out += char;
                index++;
                continue;
            }
            const next = text[index + 1];
            if (next == null)
                break;
            if (next === "u") {
                const hex = text.slice(index + 2, index + 6);
                if (hex.length < 4)
                    break;
                out += String.fromCharCode(Number.parseInt(hex, 16));
                index += 6;
                continue;
            }
            out += escapes[next] ?? next;
            index += 2;
        }
        this.buffer = text.slice(index);
        return out;
    }
}

const escapes: Record<string, string> = {n: "\n", t: "\t", r: "\r", b: "\b", f: "\f", "\"": "\"", "\\": "\\", "/": "/"};
