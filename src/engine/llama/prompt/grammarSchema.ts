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
    const split = splitTypeList(schema as Record<string, unknown>);
    if (split != null)
        return toGrammarSchema(split);
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(schema)) {
        if (key === "$schema" || key === "$id" || key === "$comment" || key === "title" || key === "default" || key === "examples")
            continue;
        if ((key === "properties" || key === "$defs" || key === "definitions") && value != null && typeof value === "object"
            && !Array.isArray(value))
            out[key === "definitions" ? "$defs" : key] = Object.fromEntries(
                Object.entries(value as Record<string, unknown>).map(([name, sub]) => [name, toGrammarSchema(sub)])
            );
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

const keywordsOfType: Record<string, readonly string[]> = {
    string: ["minLength", "maxLength", "format"],
    object: ["properties", "additionalProperties", "required", "minProperties", "maxProperties"],
    array: ["items", "prefixItems", "minItems", "maxItems"]
};

/**
 * node-llama-cpp applies type-specific keywords only to a single `type`: with `["string", "null"]`
 * a `maxLength` (or an object's `properties`) would be ignored. A type list with such keywords
 * becomes a `oneOf` of one schema per type, each with its own keywords.
 */
function splitTypeList(schema: Record<string, unknown>): Record<string, unknown> | undefined {
    if (!Array.isArray(schema.type) || schema.type.length < 2 || schema.enum != null || schema.const != null)
        return undefined;
    const typeList = schema.type as string[];
    if (!typeList.some((type) => keywordsOfType[type]?.some((key) => key in schema)))
        return undefined;
    const shared = Object.fromEntries(Object.entries(schema).filter(([key]) =>
        key !== "type" && !Object.values(keywordsOfType).some((keys) => keys.includes(key))));
    return {
        ...shared,
        oneOf: typeList.map((type) => ({
            type,
            ...Object.fromEntries((keywordsOfType[type] ?? []).filter((key) => key in schema).map((key) => [key, schema[key]]))
        }))
    };
}
