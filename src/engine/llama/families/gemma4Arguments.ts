import {maxCallNesting} from "./callNesting.js";
import {jsonEnd, parseJson} from "./jsonText.js";

type Read = {value: Record<string, unknown>, end: number};

/**
 * Reads the arguments of a Gemma 4 call, `{key:<|"|>text<|"|>,n:5,list:[…],obj:{…}}`, at `at` in `text`: the value and
 * where it ends, or undefined where they are not complete or nest deeper than maxCallNesting. Linear in their length.
 */
export function readGemma4Arguments(text: string, at: number): Read | undefined {
    return jsonInBraces(text, at) ?? new Gemma4Value(text, at).dict(1);
}

/**
 * node-llama-cpp's Gemma 4 wrapper renders earlier calls' arguments as JSON in doubled braces (`call:NAME{{"k": "v"}}`),
 * so the model may copy that form: read it where the call's text has it. The inner object's end is found in one scan
 * (a `}}` inside a string is not its end), then parsed once.
 */
function jsonInBraces(text: string, at: number): Read | undefined {
    if (!text.startsWith("{{", at))
        return undefined;
    const end = jsonEnd(text, at + 1);
    const json = end == null || text[end] !== "}" ? undefined : parseJson(text.slice(at + 1, end));
    if (typeof json?.value === "object" && json.value != null && !Array.isArray(json.value))
        return {value: json.value as Record<string, unknown>, end: end! + 1};
    return undefined;
}

/**
 * Reads Gemma 4's argument values from `text` at `at`; each method gives the value and where it ends, or undefined.
 * `depth` counts the objects and arrays open around a value (the arguments are level 1): reading stops past
 * maxCallNesting, so the recursion stays that shallow whatever the model wrote.
 */
class Gemma4Value {
    public constructor(private readonly text: string, private at: number) {}

    public dict(depth: number): Read | undefined {
        if (depth > maxCallNesting || !this.take("{"))
            return undefined;
        const value: Record<string, unknown> = {};
        if (this.take("}"))
            return {value, end: this.at};
        do {
            this.skipSpace();
            const key = /^[^:}]+/.exec(this.text.slice(this.at))?.[0];
            if (key == null)
                return undefined;
            this.at += key.length;
            if (!this.take(":"))
                return undefined;
            const item = this.value(depth);
            if (item === noValue)
                return undefined;
            // JSON-quoted keys (the form node-llama-cpp's wrapper renders) are read too.
            value[key.trim().replace(/^"(.*)"$/, "$1")] = item;
        } while (this.take(","));
        return this.take("}") ? {value, end: this.at} : undefined;
    }

    /** The value at `at`, inside a container at `depth`. */
    private value(depth: number): unknown {
        this.skipSpace();
        const rest = this.text.slice(this.at);
        if (rest.startsWith("<|\"|>")) {
            const end = rest.indexOf("<|\"|>", 5);
            if (end < 0)
                return noValue;
            this.at += end + 5;
            return rest.slice(5, end);
        }
        if (rest.startsWith("{"))
            return this.dict(depth + 1)?.value ?? noValue;
        if (rest.startsWith("["))
            return this.list(depth + 1);
        const literal = /^("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(rest)?.[0];
        if (literal == null)
            return noValue;
        this.at += literal.length;
        return JSON.parse(literal) as unknown;
    }

    private list(depth: number): unknown {
        if (depth > maxCallNesting || !this.take("["))
            return noValue;
        const items: unknown[] = [];
        if (this.take("]"))
            return items;
        do {
            const item = this.value(depth);
            if (item === noValue)
                return noValue;
            items.push(item);
        } while (this.take(","));
        return this.take("]") ? items : noValue;
    }

    private take(text: string): boolean {
        this.skipSpace();
        if (!this.text.startsWith(text, this.at))
            return false;
        this.at += text.length;
        return true;
    }

    private skipSpace(): void {
        while (this.at < this.text.length && /\s/.test(this.text[this.at]!))
            this.at++;
    }
}

const noValue = Symbol("no value");
