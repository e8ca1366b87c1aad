import {invalidRequest} from "../../protocol/errors.js";
import {checkJsonNesting} from "../jsonNesting.js";

/**
 * Limits on a schema a client may send (as the reference servers set them): `depth` counts nested schemas,
 * `nesting` the JSON objects and arrays of the schema document (two per nested schema under `properties`).
 */
export const schemaLimits = {bytes: 64 * 1024, nodes: 512, depth: 24, nesting: 64, count: 1000} as const;

/**
 * Keywords whose value is a count the grammar spells out as a repetition: llama.cpp expands repetitions and refuses
 * a grammar past ~2,000 of them, so a count is an integer from 0 to `schemaLimits.count`.
 */
const countKeywords = ["minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"] as const;

/** Refuses a schema document nested deeper than any schema the rules accept, before anything walks it whole. */
export function checkSchemaNesting(schema: unknown, param: string): void {
    checkJsonNesting(schema, schemaLimits.nesting, param);
}

/**
 * The keywords the generation grammar enforces (node-llama-cpp's JSON-schema grammar) or that only
 * annotate. Anything else would be silently ignored by the grammar, so it is refused by name.
 */
const enforcedKeywords = new Set([
    "type", "properties", "required", "additionalProperties", "minProperties", "maxProperties",
    "items", "prefixItems", "minItems", "maxItems", "enum", "const", "anyOf", "oneOf",
    "minLength", "maxLength", "format", "$ref", "$defs", "definitions"
]);
const annotationKeywords = new Set([
    "$schema", "$id", "$comment", "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly"
]);
const grammarFormats = new Set(["date-time", "date", "time"]);
const types = new Set(["object", "array", "string", "number", "integer", "boolean", "null"]);

export type SchemaRuleOptions = {
    /** The request parameter naming the schema, for error messages (`text.format.schema`, `tools[0].parameters`). */
    param: string,
    /** Strict schemas close every object (`additionalProperties: false`) and require every property. */
    strict: boolean
};

/**
 * Checks a client's JSON schema before any generation: size limits, an object at the root, only
 * keywords the grammar can enforce, and OpenAI's strict-mode rules. Throws a 400 naming the problem.
 */
export function checkJsonSchema(schema: Record<string, unknown>, options: SchemaRuleOptions): void {
    checkSchemaNesting(schema, options.param);
    const bytes = Buffer.byteLength(JSON.stringify(schema));
    if (bytes > schemaLimits.bytes)
        throw invalidRequest(`The schema is ${bytes} bytes; the limit is ${schemaLimits.bytes}.`, options.param, "schema_too_large");
    if (schema.type !== "object")
        throw invalidRequest("The schema's root must be an object schema (\"type\": \"object\").", options.param, "invalid_schema");
    let nodes = 0;
    const visit = (node: unknown, path: string, depth: number): void => {
        if (node == null || typeof node !== "object" || Array.isArray(node))
            throw invalidRequest(`Schema at '${path}' must be an object.`, options.param, "invalid_schema");
        if (++nodes > schemaLimits.nodes)
            throw invalidRequest(`The schema has more than ${schemaLimits.nodes} nodes.`, options.param, "schema_too_large");
        if (depth > schemaLimits.depth)
            throw invalidRequest(`The schema nests deeper than ${schemaLimits.depth} levels (at '${path}').`, options.param,
                "schema_too_deep");
        const record = node as Record<string, unknown>;
        for (const key of Object.keys(record))
            if (!enforcedKeywords.has(key) && !annotationKeywords.has(key))
                throw invalidRequest(
                    `Schema keyword '${key}' (at '${path}') is not supported: generation is constrained by a grammar that cannot enforce `
                        + `it. Supported: ${[...enforcedKeywords].join(", ")}.`,
                    options.param,
                    "unsupported_schema_keyword"
                );
        checkNode(record, path, options);
        const children = (value: unknown, at: string) => {
            if (value != null && typeof value === "object" && !Array.isArray(value))
                for (const [name, sub] of Object.entries(value))
                    visit(sub, `${at}/${name}`, depth + 1);
        };
        children(record.properties, `${path}/properties`);
        children(record.$defs, `${path}/$defs`);
        children(record.definitions, `${path}/definitions`);
        if (record.items != null)
            visit(record.items, `${path}/items`, depth + 1);
        if (typeof record.additionalProperties === "object")
            visit(record.additionalProperties, `${path}/additionalProperties`, depth + 1);
        for (const key of ["anyOf", "oneOf", "prefixItems"] as const) {
            const list = record[key];
            if (list == null)
                continue;
            if (!Array.isArray(list) || list.length === 0)
                throw invalidRequest(`'${key}' at '${path}' must be a non-empty array of schemas.`, options.param, "invalid_schema");
            list.forEach((sub, index) => visit(sub, `${path}/${key}/${index}`, depth + 1));
        }
    };
    visit(schema, "#", 1);
}

function checkNode(node: Record<string, unknown>, path: string, options: SchemaRuleOptions): void {
    const typeList = node.type == null ? [] : Array.isArray(node.type) ? node.type : [node.type];
    for (const type of typeList)
        if (typeof type !== "string" || !types.has(type))
            throw invalidRequest(`Unknown type ${JSON.stringify(type)} at '${path}'.`, options.param, "invalid_schema");
    if (node.format != null && !grammarFormats.has(String(node.format)))
        throw invalidRequest(`Schema format '${String(node.format)}' (at '${path}') is not supported: `
            + `only ${[...grammarFormats].join(", ")}.`, options.param, "unsupported_schema_keyword");
    if (typeof node.$ref === "string" && !/^#\/(\$defs|definitions)\/[^/]+$/.test(node.$ref))
        throw invalidRequest(`Schema reference '${node.$ref}' (at '${path}') is not supported: only local '#/$defs/NAME' references.`,
            options.param, "unsupported_schema_keyword");
    for (const keyword of countKeywords) {
        const count = node[keyword];
        if (count != null && (typeof count !== "number" || !Number.isInteger(count) || count < 0 || count > schemaLimits.count))
            throw invalidRequest(`'${keyword}' at '${path}' must be an integer from 0 to ${schemaLimits.count}.`, options.param,
                "invalid_schema");
    }
    if (node.required != null && (!Array.isArray(node.required) || node.required.some((name) => typeof name !== "string")))
        throw invalidRequest(`'required' at '${path}' must be an array of property names.`, options.param, "invalid_schema");

    if (!options.strict || !typeList.includes("object"))
        return;
    if (node.additionalProperties !== false)
        throw invalidRequest(`Strict schemas must set "additionalProperties": false on every object (missing at '${path}').`, options.param,
            "invalid_schema");
    const properties = Object.keys((node.properties ?? {}) as object);
    const required = new Set((node.required ?? []) as string[]);
    const missing = properties.filter((name) => !required.has(name));
    if (missing.length > 0)
        throw invalidRequest(`Strict schemas must list every property in 'required' (at '${path}': ${missing.join(", ")}); use a nullable `
            + `type for optional values.`, options.param, "invalid_schema");
}
