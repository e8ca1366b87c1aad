import type {InvalidRequestCode} from "../../protocol/errors.js";

/**
 * What a client reads when a schema node refuses its value. The request schemas carry these under the
 * annotation keyword `errors`, keyed by the ajv keyword that failed (`type`, `required`, `enum`, `discriminator`,
 * `not`, …) or `default`; `schemaErrors.ts` turns the failure into a 400 with this message.
 *
 * A message may use `{param}` (the parameter named in the error, `input[2].content[0].type`), `{item}` (the object
 * holding the failing keyword, `input[2]`) and `{value}` (the value refused, or the tag of an unknown type).
 */
export type ErrorNote = {
    message: string,
    /** Else `invalid_type` for a wrong type, `missing_required_parameter` for a missing one, `invalid_value` otherwise. */
    code?: InvalidRequestCode,
    /** Names a property of the refused object as the parameter (`type` when a whole part is refused for its type). */
    at?: string,
    /** Names the array holding the refused value instead of the value (`include`, as OpenAI names it). */
    atParent?: true
};

/** The annotation keyword itself, registered with ajv so that strict mode accepts it. */
export const errorNotesKeyword = "errors";

export type ErrorNotes = Partial<Record<"default" | "type" | "required" | "enum" | "const" | "discriminator" | "not" | "pattern"
    | "minLength" | "maxLength" | "minimum" | "maximum" | "minItems" | "maxItems" | "maxProperties" | "propertyNames", ErrorNote>>;

export function note(message: string, code?: InvalidRequestCode, place: {at?: string, atParent?: true} = {}): ErrorNote {
    return {message, ...(code == null ? {} : {code}), ...place};
}

/** One message for every way a node can fail. */
export function always(message: string, code?: InvalidRequestCode): {errors: ErrorNotes} {
    return {errors: {default: note(message, code)}};
}
