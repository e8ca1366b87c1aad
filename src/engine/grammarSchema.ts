/**
 * node-llama-cpp's schema dialect names alternatives `oneOf` (generated as a choice, which is what
 * `anyOf` means for generation too) and knows nothing of annotations; ajv still validates the
 * result against the client's schema as written. Draft-07 `definitions` (zod's output) become `$defs`.
 * Also applied to function parameters, which node-llama-cpp turns into the call's grammar.
 */
export function toGrammarSchema(schema: unknown): unknown {
    if (Array.isArray(schema))
        return schema.map(toGrammarSchema);
    if (schema == null || typeof schema !== "object")
        return schema;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(schema)) {
        if (key === "$schema" || key === "$id" || key === "$comment" || key === "title" || key === "default" || key === "examples")
            continue;
        if ((key === "properties" || key === "$defs" || key === "definitions") && value != null && typeof value === "object" && !Array.isArray(value))
            out[key === "definitions" ? "$defs" : key] = Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([name, sub]) => [name, toGrammarSchema(sub)]));
        else if (key === "$ref" && typeof value === "string")
            out.$ref = value.replace(/^#\/definitions\//, "#/$defs/");
        else if (key === "anyOf")
            out.oneOf = toGrammarSchema(value);
        else if (key === "enum" || key === "const" || key === "required" || key === "description")
            out[key] = value;
        else
            out[key] = toGrammarSchema(value);
    }
    return out;
}
