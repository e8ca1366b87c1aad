import {always, note} from "./errorNotes.js";

/** Field schemas several bodies and `$defs` share, each with its message written once. */

/** Names of tools and of `json_schema` formats, as OpenAI allows them. */
export const namePattern = "^[a-zA-Z0-9_-]{1,64}$";

export const objectRequired = note("'{param}' must be an object.");

/** A `strict` flag (tools, `json_schema` formats). */
export const strictFlag = {type: ["boolean", "null"], ...always("'{param}' must be a boolean.", "invalid_type")};

/** A client's JSON Schema (tool parameters, a `json_schema` format); its rules are checked apart (`jsonSchemaRules.ts`). */
export function clientSchema(nullable: boolean) {
    return {type: nullable ? ["object", "null"] : "object", ...always("'{param}' must be a JSON schema object.", "invalid_type")};
}

/** A request's `input`: a string (one user message) or items. */
export function inputField(extra: Record<string, unknown> = {}) {
    return {type: ["string", "array"], items: {$ref: "defs#/$defs/inputItem"}, ...extra};
}

export const inputType = note("'{param}' must be a string or an array of items.", "invalid_type");
