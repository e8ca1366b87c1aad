import type {TextCallFormatName, TextCallTools} from "../../src/engine/llama/families/textCallFormats.js";

/**
 * Hand-written model outputs in each text call format (llama.cpp's test-chat.cpp style) and the calls read from them,
 * over these tools: the table the format tests and the streaming reader's tests share.
 */
export const tools: TextCallTools = new Map([
    ["get_weather", {params: {type: "object", properties: {city: {type: "string"}, days: {type: "integer"}}}}],
    ["shell", {params: {type: "object", properties: {
        command: {type: "array"}, workdir: {type: "string"}, timeout_ms: {type: ["integer", "null"]}
    }}}],
    ["apply_patch", {params: {type: "object", properties: {input: {type: "string"}}}}],
    ["untyped", {}]
]);

/** The family whose native call texts (families.mjs) each format reads. */
export const nativeOf: Record<TextCallFormatName, string[]> = {
    functionParameter: ["qwen3-coder", "qwen3.5", "nemotron-3-nano"],
    seedFunctionParameter: ["seed-oss"],
    argKeyValue: ["glm-4.6", "glm-4.7-flash"],
    invoke: ["minimax-m2"],
    gemma4: ["gemma-4"]
};

export const patch = "*** Begin Patch\n*** Update File: a.ts\n@@\n-const a = 1;\n+const a = 2; // </parameter> in a file\n*** End Patch";

/** Hand-written model outputs per format (llama.cpp's test-chat.cpp style): text → the calls read from it. */
type Calls = {name: string, arguments: Record<string, unknown>}[];

/**
 * `calls`: what the format's parse reads from the whole output (undefined: not calls, the output stays text). `read`:
 * where the streaming reader, which reads each call block once it closes, reads otherwise: its calls and the text
 * after them.
 */
export type Row = {format: TextCallFormatName, output: string, calls: Calls | undefined, read?: {calls: Calls, after: string}};
export const table: Row[] = [
    {format: "functionParameter",
        calls: [{name: "shell", arguments: {command: ["bash", "-lc", "ls -la"], workdir: "/tmp", timeout_ms: 5000}}],
        output: "<tool_call>\n<function=shell>\n<parameter=command>\n[\"bash\", \"-lc\", \"ls -la\"]\n</parameter>\n" +
            "<parameter=workdir>\n/tmp\n</parameter>\n<parameter=timeout_ms>\n5000\n</parameter>\n</function>\n</tool_call>"},
    {format: "functionParameter", calls: [{name: "apply_patch", arguments: {input: patch}}],
        output: `<tool_call>\n<function=apply_patch>\n<parameter=input>\n${patch}\n</parameter>\n</function>\n</tool_call>`},
    {format: "functionParameter",
        calls: [{name: "get_weather", arguments: {city: "Paris"}}, {name: "get_weather", arguments: {city: "Rome", days: 3}}],
        output: "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>\n" +
            "<tool_call>\n<function=get_weather>\n<parameter=city>\nRome\n</parameter>\n<parameter=days>\n3\n</parameter>\n" +
            "</function>\n</tool_call>"},
    // A string parameter stays text even when it looks like a number; an untyped one is read as JSON where it is.
    {format: "functionParameter", calls: [{name: "get_weather", arguments: {city: "1984"}}],
        output: "<tool_call>\n<function=get_weather>\n<parameter=city>\n1984\n</parameter>\n</function>\n</tool_call>"},
    {format: "functionParameter", calls: [{name: "untyped", arguments: {n: 2, flag: true, word: "yes", list: [1]}}],
        output: "<tool_call>\n<function=untyped>\n<parameter=n>\n2\n</parameter>\n<parameter=flag>\ntrue\n</parameter>\n" +
            "<parameter=word>\nyes\n</parameter>\n<parameter=list>\n[1]\n</parameter>\n</function>\n</tool_call>"},
    // node-llama-cpp's Qwen 3.5 wrapper renders earlier calls as one `params` JSON blob; a model may copy it.
    {format: "functionParameter", calls: [{name: "get_weather", arguments: {city: "Paris"}}],
        output: "<tool_call>\n<function=get_weather>\n<parameter=params>\n{\"city\": \"Paris\"}\n</parameter>\n</function>\n</tool_call>"},
    // The turn ended right after the function closed (the section's closer was the stop text): still a call.
    {format: "functionParameter", calls: [{name: "get_weather", arguments: {}}],
        output: "<tool_call>\n<function=get_weather>\n</function>"},
    {format: "functionParameter", calls: undefined, output: "<tool_call>\n<function=get_weather>\n<parameter=city>\nPar"},
    {format: "functionParameter", calls: undefined, output: "<tool_call>\n<function="},
    {format: "functionParameter", calls: undefined,
        output: "<tool_call>\n<function=rm_rf>\n<parameter=path>\n/\n</parameter>\n</function>\n</tool_call>"},
    {format: "functionParameter", calls: undefined,
        output: "<tool_call>\n<function=get_weather>\n</function>\n</tool_call>\nAnd then some prose after the call.",
        read: {calls: [{name: "get_weather", arguments: {}}], after: "\nAnd then some prose after the call."}},
    {format: "argKeyValue",
        calls: [{name: "shell", arguments: {command: ["ls"], timeout_ms: null}}, {name: "get_weather", arguments: {city: "Oslo"}}],
        output: "<tool_call>shell\n<arg_key>command</arg_key>\n<arg_value>[\"ls\"]</arg_value>\n<arg_key>timeout_ms</arg_key>\n" +
            "<arg_value>null</arg_value>\n</tool_call><tool_call>get_weather<arg_key>city</arg_key><arg_value>Oslo</arg_value>" +
            "</tool_call>"},
    {format: "argKeyValue", calls: [{name: "apply_patch", arguments: {input: "line 1\n</arg_value> quoted\nline 3"}}],
        output: "<tool_call>apply_patch\n<arg_key>input</arg_key>\n<arg_value>line 1\n</arg_value> quoted\nline 3</arg_value>\n" +
            "</tool_call>"},
    {format: "argKeyValue", calls: undefined, output: "<tool_call>get_weather\n<arg_key>city</arg_key>"},
    {format: "invoke",
        calls: [{name: "get_weather", arguments: {city: "Paris", days: 2}}, {name: "shell", arguments: {command: ["pwd"]}}],
        output: "<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris</parameter>\n" +
            "<parameter name=\"days\">2</parameter>\n</invoke>\n<invoke name=\"shell\">\n" +
            "<parameter name=\"command\">[\"pwd\"]</parameter>\n" +
            "</invoke>\n</minimax:tool_call>"},
    {format: "invoke", calls: undefined, output: "<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris"},
    {format: "gemma4",
        calls: [{name: "shell", arguments: {command: ["bash", "-lc", "echo \"hi\", there"], workdir: "/tmp", timeout_ms: 5000}}],
        output: "<|tool_call>call:shell{command:[<|\"|>bash<|\"|>,<|\"|>-lc<|\"|>,<|\"|>echo \"hi\", there<|\"|>]," +
            "workdir:<|\"|>/tmp<|\"|>,timeout_ms:5000}<tool_call|>"},
    {format: "gemma4",
        calls: [
            {name: "untyped", arguments: {nested: {a: [1, 2.5, -3], b: null, c: true}, empty: {}}},
            {name: "get_weather", arguments: {city: "Paris"}}
        ],
        output: "<|tool_call>call:untyped{nested:{a:[1, 2.5, -3], b:null, c:true}, empty:{}}<tool_call|>" +
            "<|tool_call>call:get_weather{\"city\": \"Paris\"}<tool_call|>"},
    {format: "gemma4", calls: [{name: "apply_patch", arguments: {input: patch}}],
        output: `<|tool_call>call:apply_patch{input:<|"|>${patch}<|"|>}<tool_call|>`},
    {format: "gemma4", calls: [{name: "get_weather", arguments: {city: "{Paris}"}}],
        output: "<|tool_call>call:get_weather{{\"city\": \"{Paris}\"}}<tool_call|>"},
    {format: "gemma4", calls: undefined, output: "<|tool_call>call:get_weather{city:<|\"|>Par"},
    {format: "gemma4", calls: undefined, output: "<|tool_call>call:get_weather{city:Paris}<tool_call|>"},
    {format: "seedFunctionParameter", calls: [{name: "get_weather", arguments: {city: "Paris"}}],
        output: "<seed:tool_call>\n<function=get_weather>\n{\"city\": \"Paris\"}</function>\n</seed:tool_call>"},
    {format: "seedFunctionParameter", calls: [{name: "get_weather", arguments: {city: "Paris", days: 1}}],
        output: "<seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n<parameter=days>1</parameter>\n" +
            "</function>\n</seed:tool_call>"}
];
