import {maxCallNesting, nestsDeeperThan} from "./callNesting.js";
import {readGemma4Arguments} from "./gemma4Arguments.js";
import {Gemma4CallStream} from "./gemma4CallStream.js";
import {parseJson} from "./jsonText.js";
import {TaggedCallStream, type CallHead, type TaggedSyntax} from "./taggedCallStream.js";
import {declaredTypes, valueKind, type BlockStream, type TextCall, type TextCallTools} from "./textCallTypes.js";

export type {BlockStream, CallSoFar, TextCall, TextCallTools} from "./textCallTypes.js";

/**
 * Call formats that write each argument apart (`<parameter=city>\nParis\n</parameter>`), which node-llama-cpp's
 * function calling cannot read: it grammar-forces one JSON object after the call's name. A model of these families
 * generates freely and its text is read afterwards (llama.cpp's common/chat.cpp and vLLM's tool parsers do the same).
 */
export type TextCallFormatName = keyof typeof textCallFormats;

export type TextCallFormat = {
    /** Where a call starts: the text the model writes first. Text before it is the answer. */
    opener: string,
    /** Where a call section ends. */
    closer: string,
    /**
     * Reads the calls in `text` (which starts with `opener`), or undefined where it is not a complete call of an
     * offered tool: the text is then the answer, as the model wrote it.
     */
    parse(text: string, tools: TextCallTools): TextCall[] | undefined,
    /**
     * A reader of one block's text (after the opener, before the closer) as it is written: what it tells for certain,
     * given that the block reads as calls at its end (`parse`, whose JSON.stringify'd arguments the JSON starts).
     */
    streamBlock(tools: TextCallTools): BlockStream
};

/**
 * `<tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n…</function>\n</tool_call>`: Qwen3-Coder, Qwen3.5,
 * Nemotron 3 Nano; Seed-OSS the same inside `<seed:tool_call>`. One newline either side of a value is the format's.
 */
function functionParameterFormat(opener: string, closer: string): TextCallFormat {
    const syntax: TaggedSyntax = {
        head: tagHead(/\s*<function=([^>\n]+)>/y, "<function=", /^[^>\n]*$/), pairOpen: /<parameter=([^>\n]+)>/y, pairMarker: "<parameter=",
        valueClose: "</parameter>", callEnd: {marker: "</function>", last: true}, trimNewline: true, jsonBody: true
    };
    return blockFormat(opener, closer, syntax, (block) => {
        const head = /^\s*<function=([^>\n]+)>/.exec(block);
        if (head == null || !block.trimEnd().endsWith("</function>"))
            return undefined;
        const body = block.slice(head[0].length, block.trimEnd().length - "</function>".length);
        // node-llama-cpp's Seed wrapper renders earlier calls' arguments as one JSON object: the model may copy it.
        const json = body.trim().startsWith("{") ? parseJson(body.trim()) : undefined;
        if (typeof json?.value === "object" && json.value != null)
            return {name: head[1]!.trim(), pairs: [["params", body.trim()]]};
        const pairs = readPairs(body, /<parameter=([^>\n]+)>/y, "</parameter>", /^\s*(<parameter=|$)/);
        return pairs && {name: head[1]!.trim(), pairs: pairs.map(([key, value]) => [key, stripOneNewline(value)] as const)};
    });
}

/** `<tool_call>NAME\n<arg_key>KEY</arg_key>\n<arg_value>VALUE</arg_value>\n…</tool_call>`: GLM-4.5, 4.6, 4.7. */
const argKeyValueFormat = blockFormat("<tool_call>", "</tool_call>", {
    head: nameBefore("<arg_key>"), pairOpen: /<arg_key>([\s\S]*?)<\/arg_key>\s*<arg_value>/y, pairMarker: "<arg_key>",
    valueClose: "</arg_value>", trimNewline: false, jsonBody: false
}, (block) => {
    // The name is what precedes the first key, found by one search: a pattern with a lazy name then optional space
    // backtracked over a long run of spaces in quadratic time (128K spaces: 21 s).
    const keysAt = block.indexOf("<arg_key>");
    const name = block.slice(0, keysAt < 0 ? undefined : keysAt).trim();
    if (name === "" || /[<\n]/.test(name))
        return undefined;
    const pairs = readPairs(keysAt < 0 ? "" : block.slice(keysAt), /<arg_key>([\s\S]*?)<\/arg_key>\s*<arg_value>/y, "</arg_value>",
        /^\s*(<arg_key>|$)/);
    return pairs && {name, pairs};
});

/** `<minimax:tool_call>\n<invoke name="NAME">\n<parameter name="KEY">VALUE</parameter>\n</invoke>\n…</minimax:tool_call>`. */
const invokeFormat = blockFormat("<minimax:tool_call>", "</minimax:tool_call>", {
    head: tagHead(/\s*<invoke name="([^"]+)">/y, "<invoke name=\"", /^[^"]*"?$/), pairOpen: /<parameter name="([^"]+)">/y,
    pairMarker: "<parameter ", valueClose: "</parameter>", callEnd: {marker: "</invoke>", last: false}, trimNewline: false,
    jsonBody: false
}, (section) => {
    const invoke = /\s*<invoke name="([^"]+)">([\s\S]*?)<\/invoke>/y;
    let at = 0;
    const found: {name: string, pairs: (readonly [string, string])[]}[] = [];
    while (section.slice(at).trim() !== "") {
        invoke.lastIndex = at;
        const match = invoke.exec(section);
        const pairs = match && readPairs(match[2]!.trim(), /<parameter name="([^"]+)">/y, "</parameter>", /^\s*(<parameter |$)/);
        if (match == null || pairs == null)
            return undefined;
        found.push({name: match[1]!, pairs});
        at = invoke.lastIndex;
    }
    return found;
});

/**
 * `<|tool_call>call:NAME{key:<|"|>text<|"|>,n:5,list:[…],obj:{…}}<tool_call|>`: Gemma 4, whose strings are quoted with
 * its `<|"|>` token and whose keys are bare (llama.cpp's gemma4 parser reads the same grammar).
 */
const gemma4Format: TextCallFormat = {
    opener: "<|tool_call>",
    closer: "<tool_call|>",
    parse: (text, tools) => {
        const calls: TextCall[] = [];
        let rest = text;
        while (rest.trim() !== "") {
            rest = rest.trimStart();
            const head = /^<\|tool_call>call:([^{\s]+)/.exec(rest);
            const tool = head == null ? undefined : tools.get(head[1]!);
            if (head == null || tool == null)
                return undefined;
            const read = readGemma4Arguments(rest, head[0].length);
            if (read == null || !rest.startsWith("<tool_call|>", read.end) && rest.slice(read.end).trim() !== "")
                return undefined;
            calls.push({name: head[1]!, arguments: read.value});
            rest = rest.slice(read.end).replace(/^<tool_call\|>/, "");
        }
        return callsRead(calls);
    },
    streamBlock: (tools) => new Gemma4CallStream(tools)
};

export const textCallFormats = {
    functionParameter: functionParameterFormat("<tool_call>", "</tool_call>"),
    seedFunctionParameter: functionParameterFormat("<seed:tool_call>", "</seed:tool_call>"),
    argKeyValue: argKeyValueFormat,
    invoke: invokeFormat,
    gemma4: gemma4Format
} satisfies Record<string, TextCallFormat>;

type ParsedBlock = {name: string, pairs: readonly (readonly [string, string])[]};

/** A format whose calls sit in `opener … closer` blocks, each read by `readBlock` (see readBlocks) and streamed by `syntax`. */
function blockFormat(opener: string, closer: string, syntax: TaggedSyntax,
    readBlock: (block: string) => ParsedBlock | ParsedBlock[] | undefined): TextCallFormat {
    return {
        opener, closer, parse: (text, tools) => readBlocks(text, opener, closer, readBlock, tools),
        streamBlock: (tools) => new TaggedCallStream(syntax, tools)
    };
}

/**
 * A call's head `pattern` (sticky, the name in its first group) at `at`; `wait` while the text after the spaces is
 * `prefix`'s start, or `prefix` and a name still open (`open`).
 */
function tagHead(pattern: RegExp, prefix: string, open: RegExp): (text: string, at: number) => CallHead {
    return (text, at) => {
        pattern.lastIndex = at;
        const match = pattern.exec(text);
        if (match != null)
            return {name: match[1]!.trim(), end: pattern.lastIndex};
        const rest = text.slice(at, at + 1024).trimStart();
        const writing = prefix.startsWith(rest) || (rest.startsWith(prefix) && open.test(rest.slice(prefix.length)));
        return writing && rest.length < 1024 ? "wait" : undefined;
    };
}

/**
 * GLM's head: the name is the block's text before the first `marker`, on one line: it is known at the line's end or
 * the marker (argKeyValueFormat). A longer head than any name is not one.
 */
function nameBefore(marker: string): (text: string, at: number) => CallHead {
    return (text, at) => {
        const head = /^\s*([^<\n]*)/.exec(text.slice(at, at + 1024))!;
        const end = at + head[0].length;
        const name = head[1]!.trim();
        if (end >= text.length)
            return head[0].length < 1024 ? "wait" : undefined;
        const rest = text.slice(end, end + marker.length);
        if (text[end] === "<" && rest.length < marker.length && marker.startsWith(rest))
            return "wait";
        return name !== "" && (text[end] === "\n" || rest === marker) ? {name, end} : undefined;
    };
}

/**
 * Reads `opener … closer` blocks separated by whitespace to the end of `text`; each block holds one call (or several,
 * MiniMax's). The last block's closer may be missing where the model ended its turn right after the call's own end
 * (the closer is then its stop text). Undefined where anything else is found, or a call names a tool not offered.
 */
function readBlocks(text: string, opener: string, closer: string,
    readBlock: (block: string) => ParsedBlock | ParsedBlock[] | undefined, tools: TextCallTools): TextCall[] | undefined {
    const calls: TextCall[] = [];
    let rest = text;
    while (rest.trim() !== "") {
        rest = rest.trimStart();
        if (!rest.startsWith(opener))
            return undefined;
        const end = rest.indexOf(closer, opener.length);
        const block = readBlock(rest.slice(opener.length, end < 0 ? undefined : end));
        if (block == null)
            return undefined;
        for (const {name, pairs} of Array.isArray(block) ? block : [block]) {
            const tool = tools.get(name);
            if (tool == null)
                return undefined;
            calls.push({name, arguments: typedArguments(pairs, tool.params)});
        }
        rest = end < 0 ? "" : rest.slice(end + closer.length);
    }
    return callsRead(calls);
}

/** A format's reading: the calls, or undefined where there are none or one nests deeper than maxCallNesting. */
function callsRead(calls: TextCall[]): TextCall[] | undefined {
    return calls.length === 0 || calls.some((call) => nestsDeeperThan(call.arguments, maxCallNesting)) ? undefined : calls;
}

/**
 * `OPEN(KEY)VALUE CLOSE` pairs filling `body`. A value may itself hold the closing tag (a file that mentions
 * `</parameter>`): the value ends at the first closing tag that the next pair's opening, or the end, follows.
 */
function readPairs(body: string, open: RegExp, close: string, follows: RegExp): [string, string][] | undefined {
    const pairs: [string, string][] = [];
    let at = body.length - body.trimStart().length;
    const end = body.trimEnd().length;
    while (at < end) {
        open.lastIndex = at;
        const match = open.exec(body);
        const valueEnd = match == null ? -1 : closingBefore(body, open.lastIndex, close, follows);
        if (match == null || valueEnd < 0)
            return undefined;
        pairs.push([match[1]!.trim(), body.slice(open.lastIndex, valueEnd)]);
        at = valueEnd + close.length;
        at += body.slice(at).length - body.slice(at).trimStart().length;
    }
    return pairs;
}

/** The first `close` at or after `from` that `follows` matches after. */
function closingBefore(text: string, from: number, close: string, follows: RegExp): number {
    for (let at = text.indexOf(close, from); at >= 0; at = text.indexOf(close, at + 1))
        if (follows.test(text.slice(at + close.length)))
            return at;
    return -1;
}

function stripOneNewline(value: string): string {
    return value.replace(/^\r?\n/, "").replace(/\r?\n$/, "");
}

/**
 * Values are text; a parameter the schema declares as anything but a string is read as JSON (`5`, `true`, `[1, 2]`),
 * as llama.cpp and vLLM do, and stays text where it is not JSON. Without a declared type, JSON-looking text is read.
 * A single `params` argument holding the whole JSON object (how node-llama-cpp's Qwen 3.5 and Seed wrappers render
 * earlier calls, so the model may copy it) is read as the arguments when the tool has no parameter of that name.
 */
function typedArguments(pairs: readonly (readonly [string, string])[], schema: object | null | undefined): Record<string, unknown> {
    if (pairs.length === 1 && pairs[0]![0] === "params" && declaredTypes(schema, "params") == null) {
        const whole = parseJson(pairs[0]![1].trim());
        if (typeof whole?.value === "object" && whole.value != null && !Array.isArray(whole.value))
            return whole.value as Record<string, unknown>;
    }
    const args: Record<string, unknown> = {};
    for (const [key, value] of pairs)
        args[key] = valueKind(declaredTypes(schema, key) ?? [], value) === "string" ? value : (parseJson(value.trim()) ?? {value}).value;
    return args;
}
