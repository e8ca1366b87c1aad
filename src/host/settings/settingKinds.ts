/**
 * What a setting's value is, declared once per setting in the settings table: how the CLI reads it from a flag or an
 * environment variable, how the editor reads it from settings.json, and what JSON schema package.json declares for it.
 * A kind answers a `Reading` instead of throwing, so each face says a bad value its own way: the CLI refuses to start,
 * the editor falls back to the default and reports it.
 */

/** A value as the CLI's parser hands it over: a flag's text, a repeated flag's texts, a switch, or an environment variable. */
export type CliRaw = string | boolean | (string | boolean)[];

/**
 * A value read: `value` undefined means "not set" (blank text); `rejected` lists items of a list that were left out.
 * Or what the value must be, when it is none of that (`expected`: "an integer from 0 to 65535").
 */
export type Reading<V> = {value: V | undefined, rejected?: string[]} | {expected: string};

/** The part of a setting's package.json schema that follows from its kind. */
export type KindSchema = {
    type: "integer" | "boolean" | "string" | "array",
    items?: object,
    enum?: string[],
    minimum?: number,
    maximum?: number
};

export type Kind<V> = {
    readonly schema: KindSchema,
    /** How node's parseArgs takes the flag. */
    readonly cli: {type: "string" | "boolean", multiple: boolean},
    /** For lists whose items are checked: the items as messages name them ("an http(s) URL", "http(s) URLs"). */
    readonly item?: {one: string, many: string},
    fromCli(raw: CliRaw): Reading<V>,
    fromJson(raw: unknown): Reading<V>,
    /** The value as package.json writes it and messages show it. */
    toJson(value: V): unknown
};

/**
 * A whole number in [min, max]; with `auto`, 0 is allowed too and means "the engine decides" (threads, context size):
 * package.json's minimum is then 0.
 */
export function integer(bounds: {min: number, max?: number, auto?: true}): Kind<number> {
    const {min, max, auto} = bounds;
    const range = max == null ? `an integer from ${min} up` : `an integer from ${min} to ${max}`;
    const expected = auto ? `${range}, or 0 (automatic)` : range;
    const check = (value: number): Reading<number> =>
        Number.isInteger(value) && ((auto && value === 0) || (value >= min && value <= (max ?? Number.MAX_SAFE_INTEGER)))
            ? {value} : {expected};
    return {
        schema: {type: "integer", minimum: auto ? 0 : min, ...(max == null ? {} : {maximum: max})},
        cli: {type: "string", multiple: false},
        fromCli: (raw) => check(Number(raw)),
        fromJson: (raw) => typeof raw === "number" ? check(raw) : {expected},
        toJson: (value) => value
    };
}

/**
 * A size in bytes: a whole number, or one with a unit (`24GiB`, `512MiB`, `16GB`, `8G`: binary units, as memory is
 * counted; `GB` and `G` are read as GiB too, as llama.cpp's and Ollama's flags do).
 */
export function byteSize(): Kind<number> {
    const expected = "a size in bytes, e.g. 25769803776 or 24GiB";
    const units: Record<string, number> = {"": 1, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30, t: 2 ** 40};
    const parse = (raw: string): Reading<number> => {
        const match = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*$/i.exec(raw);
        const bytes = match == null ? NaN : Math.round(Number(match[1]) * units[match[2]!.toLowerCase()]!);
        return Number.isSafeInteger(bytes) && bytes > 0 ? {value: bytes} : {expected};
    };
    return {
        schema: {type: "string"},
        cli: {type: "string", multiple: false},
        fromCli: (raw) => typeof raw === "string" ? parse(raw) : {expected},
        fromJson: (raw) => typeof raw === "string" || typeof raw === "number" ? parse(String(raw)) : {expected},
        toJson: (value) => String(value)
    };
}

/** An `auto` integer as the host configuration takes it: 0 (automatic) is null. */
export function automatic(value: number): number | null {
    return value === 0 ? null : value;
}

/** A switch: `--flag`, `1` or `true` in the environment (anything else is false), true or false in settings.json. */
export function boolean(): Kind<boolean> {
    return {
        schema: {type: "boolean"},
        cli: {type: "boolean", multiple: false},
        fromCli: (raw) => ({value: raw === true || (typeof raw === "string" && (raw === "1" || raw.toLowerCase() === "true"))}),
        fromJson: (raw) => typeof raw === "boolean" ? {value: raw} : {expected: "true or false"},
        toJson: (value) => value
    };
}

/** Text that must be there when set: blank text in settings.json counts as unset (its default applies). */
export function text(): Kind<string> {
    return {...textSchema, fromCli: textFromCli, fromJson: textFromJson, toJson: (value) => value};
}

/** Text that may be absent (null; package.json's default is ""): a model path, an alias, a folder. */
export function optionalText(): Kind<string | null> {
    return {...textSchema, fromCli: textFromCli, fromJson: textFromJson, toJson: (value) => value ?? ""};
}

/** Optional text that must pass `test` when set: `expected` says what it must be (a file that exists, a known name). */
export function checkedText(expected: string, test: (value: string) => boolean): Kind<string | null> {
    const check = (reading: Reading<string>): Reading<string> =>
        "expected" in reading || reading.value === undefined || test(reading.value) ? reading : {expected};
    return {
        ...textSchema, fromCli: (raw) => check(textFromCli(raw)), fromJson: (raw) => check(textFromJson(raw)),
        toJson: (value) => value ?? ""
    };
}

const textSchema = {schema: {type: "string"}, cli: {type: "string", multiple: false}} as const;

/** The CLI takes text as given (a shell strips what it should). */
function textFromCli(raw: CliRaw): Reading<string> {
    return typeof raw === "string" ? {value: raw} : {expected: "text"};
}

/** settings.json text is trimmed, and blank is unset: a stray space is a typo, not a value. */
function textFromJson(raw: unknown): Reading<string> {
    if (typeof raw !== "string")
        return {expected: "a string"};
    return {value: raw.trim() === "" ? undefined : raw.trim()};
}

/**
 * One of a few values, named in package.json's `enum` by their text (gpu's `false` is "false"); `aliases` are other
 * spellings the CLI and the editor also take (`--gpu off`).
 */
export function choice<V extends string | false>(values: readonly V[], aliases: Readonly<Record<string, V>> = {}): Kind<V> {
    const names = values.map(String);
    const expected = `${names.slice(0, -1).join(", ")} or ${names.at(-1)!}`;
    const find = (raw: unknown): Reading<V> => {
        const found = values.find((value) => value === raw || String(value) === raw);
        if (found !== undefined)
            return {value: found};
        return typeof raw === "string" && Object.hasOwn(aliases, raw) ? {value: aliases[raw]} : {expected};
    };
    return {
        schema: {type: "string", enum: names},
        cli: {type: "string", multiple: false},
        fromCli: find,
        fromJson: find,
        toJson: String
    };
}

/**
 * A list of texts: a repeated flag (`--stop a --stop b`), or with `commas` one flag of comma-separated items; the
 * environment always separates with commas; settings.json holds an array. Blank items are dropped; items failing
 * `item.test` are rejected (the editor leaves them out, the CLI refuses them); `map` rewrites each kept item.
 */
export function list(options: {
    many: string, commas?: true, item?: {one: string, test: (item: string) => boolean}, map?: (item: string) => string
}): Kind<string[]> {
    const {many, commas, item, map = (kept: string) => kept} = options;
    const sort = (items: string[]): Reading<string[]> => ({
        value: items.filter((kept) => item?.test(kept) ?? true).map(map),
        rejected: items.filter((kept) => !(item?.test(kept) ?? true))
    });
    const split = (raw: string) => raw.split(",").map((part) => part.trim()).filter(Boolean);
    return {
        schema: {type: "array", items: {type: "string"}},
        cli: {type: "string", multiple: commas !== true},
        ...(item == null ? {} : {item: {one: item.one, many}}),
        fromCli: (raw) => sort(typeof raw === "string" ? split(raw) : Array.isArray(raw) ? raw.map(String) : []),
        fromJson: (raw) => Array.isArray(raw) && raw.every((entry) => typeof entry === "string")
            ? sort(raw.map((entry) => entry.trim()).filter(Boolean)) : {expected: `a list of ${many}`},
        toJson: (value) => value
    };
}

/** A list of JSON entries that another module checks when it uses them (the model catalog): editor only. */
export function entries(many: string): Kind<unknown[]> {
    const expected = `a list of ${many}`;
    return {
        schema: {type: "array"},
        cli: {type: "string", multiple: false},
        fromCli: () => ({expected}),
        fromJson: (raw) => Array.isArray(raw) ? {value: raw} : {expected},
        toJson: (value) => value
    };
}
