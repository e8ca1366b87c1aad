import {isObject} from "../../protocol/isObject.js";

/** Keywords whose value maps names to schemas. */
const schemaMapKeywords = new Set(["properties", "patternProperties", "dependentSchemas", "$defs", "definitions"]);

/**
 * Keywords whose value is a schema or a list of schemas: the draft 2020-12 applicators, not only those the schema
 * rules accept, so that no `$id` survives in a schema that reached the compiler some other way.
 */
const subschemaKeywords = new Set([
    "items", "prefixItems", "additionalItems", "additionalProperties", "anyOf", "oneOf", "allOf", "not", "if", "then", "else",
    "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties"
]);

/**
 * A client's schema as ajv compiles it: without the `$schema` at its root and without any `$id`. `$schema` goes
 * because the draft-07 URI zod and the SDKs write names a meta-schema this server does not load, while the keywords
 * it accepts mean the same in both drafts. `$id` goes because it is an annotation here, as it is to the grammar
 * (which drops it): kept, it would register the client's URI with ajv, where a later schema with the same `$id`
 * would collide, and a nested one would move the base that `#/$defs/NAME` resolves against away from the root,
 * where the grammar resolves it (ajv even overflows its stack on some). Values under `enum`, `const`, `default`
 * and `examples` are data, not schemas, and are kept as they are.
 */
export function anonymousSchema(schema: Record<string, unknown>): Record<string, unknown> {
    const {$schema: _dialect, ...rest} = schema;
    return withoutIds(rest) as Record<string, unknown>;
}

function withoutIds(node: unknown): unknown {
    if (Array.isArray(node))
        return node.map(withoutIds);
    if (!isObject(node))
        return node;
    // Built with fromEntries, so that a key named `__proto__` stays a key and never becomes the prototype.
    return Object.fromEntries(Object.entries(node).filter(([key]) => key !== "$id").map(([key, value]) => [
        key,
        schemaMapKeywords.has(key) && isObject(value)
            ? Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, withoutIds(sub)]))
            : subschemaKeywords.has(key) ? withoutIds(value) : value
    ]));
}
