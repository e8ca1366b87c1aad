/** What the readers of calls written as text (textCallFormats.ts) read them with, and the values they give. */

/** One parsed call: the function's name and its arguments, typed by the tool's schema. */
export type TextCall = {name: string, arguments: Record<string, unknown>};

/** The tools offered to this generation: their names, and each parameter's JSON-schema type where one is declared. */
export type TextCallTools = ReadonlyMap<string, {readonly params?: object | null}>;

/** A call of a block as its text tells so far: its name, and its arguments' JSON text written since the last read. */
export type CallSoFar = {name: string, json: string};

/** Reads one call block as its text is written: each `read` is given the text that follows the last. */
export type BlockStream = {read(more: string): readonly CallSoFar[]};

/** The calls a block stream has told of, and the JSON it wrote since they were last taken. */
export class CallsSoFar {
    private readonly calls: CallSoFar[] = [];

    /** The name of the last call started. */
    public get name(): string {
        return this.calls[this.calls.length - 1]!.name;
    }

    public start(name: string): void {
        this.calls.push({name, json: ""});
    }

    /** Writes to the arguments of the last call started. */
    public write(json: string): void {
        this.calls[this.calls.length - 1]!.json += json;
    }

    /** Every call started so far, each with the JSON written since the last take. */
    public take(): readonly CallSoFar[] {
        const news = this.calls.map((call) => ({...call}));
        for (const call of this.calls)
            call.json = "";
        return news;
    }
}

/** The JSON-schema types the tool declares for parameter `key`, or undefined where it declares no such parameter. */
export function declaredTypes(schema: object | null | undefined, key: string): readonly unknown[] | undefined {
    const properties = (schema as {properties?: Record<string, {type?: unknown} | undefined>} | null)?.properties;
    if (properties == null || !Object.hasOwn(properties, key))
        return undefined;
    const declared = properties[key]?.type;
    return Array.isArray(declared) ? declared as unknown[] : declared == null ? [] : [declared];
}

/** Whether a value written as `text` is a string argument or read as JSON (typedArguments). */
export function valueKind(types: readonly unknown[], text: string): "string" | "json" {
    if (types.includes("string"))
        return "string";
    return types.length > 0 || /^\s*[[{\d"-]|^\s*(true|false|null)\s*$/.test(text) ? "json" : "string";
}

/**
 * What a value's first character other than space tells of valueKind before the value ends: text where JSON cannot
 * start with it, `atEnd` where only its end can tell; undefined while no such character has come.
 */
export function valueKindFrom(types: readonly unknown[], first: string | undefined): "string" | "atEnd" | undefined {
    if (types.length > 0)
        return valueKind(types, "") === "string" ? "string" : "atEnd";
    return first == null ? undefined : /[[{\d"tfn-]/.test(first) ? "atEnd" : "string";
}
