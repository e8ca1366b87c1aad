import type {ErrorObject} from "ajv";
import {invalidRequest, invalidRequestBody, unknownParameter, type ApiError, type InvalidRequestCode} from "../protocol/errors.js";
import {paramOfPath} from "./jsonNesting.js";
import {errorNotesKeyword, type ErrorNote, type ErrorNotes} from "./requestSchemas/errorNotes.js";

type Path = Array<string | number>;

/**
 * Turns the first ajv failure of a request-body check into OpenAI's 400: the parameter is the failing value's JSON
 * path (`input[2].content[0].type`, `tools[0].name`), the message and code the ones the schema node declares in
 * its `errors` annotation (see `schemas/errorNotes.ts`), else a generic one made from ajv's own wording.
 * This is the only place that reads ajv errors.
 */
export function requestSchemaError(errors: ErrorObject[] | null | undefined): ApiError {
    const error = pickMostSpecific(errors ?? []);
    if (error == null)
        return invalidRequestBody();
    const path = pathOf(error.instancePath);
    const notes = notesOf(error.parentSchema);

    if (error.keyword === "additionalProperties")
        return unknownParameter(paramOfPath([...path, String((error.params as {additionalProperty: string}).additionalProperty)]));

    if (error.keyword === "required") {
        const missing = String((error.params as {missingProperty: string}).missingProperty);
        const property = notesOf((error.parentSchema as {properties?: Record<string, unknown>} | undefined)?.properties?.[missing]);
        return refusal(path, missing, {value: undefined, data: error.data},
            notes.required ?? property.required ?? withoutCode(property.default), "missing_required_parameter");
    }

    if (error.keyword === "discriminator") {
        const {tag, tagValue} = error.params as {tag: string, tagValue: unknown};
        return tagValue === undefined
            ? refusal(path, tag, {value: undefined, data: error.data}, notes.required, "missing_required_parameter")
            : refusal(path, tag, {value: tagValue, data: error.data}, notes.discriminator, "unsupported_value");
    }

    const note = notes[error.keyword as keyof ErrorNotes] ?? notes.default;
    return refusal(path, undefined, {value: error.data, data: error.data}, note,
        error.keyword === "type" ? "invalid_type" : "invalid_value", error);
}

/**
 * The 400 for a failure at `path` (`leaf`, when given, names a property of the object there). A note may move the
 * parameter (`at`, `atParent`) and words the message; without one, ajv's wording is kept behind the parameter's name.
 */
function refusal(path: Path, leaf: string | undefined, found: {value: unknown, data: unknown}, note: ErrorNote | undefined,
    code: InvalidRequestCode, error?: ErrorObject): ApiError {
    const item = paramOfPath(path);
    const place = note?.atParent === true ? path.slice(0, -1)
        : note?.at != null ? (note.at === "" ? path : [...path, note.at])
            : leaf == null ? path : [...path, leaf];
    const param = paramOfPath(place);
    const message = note == null
        ? genericMessage(param, leaf, error)
        : note.message
            .replaceAll("{param}", param)
            .replaceAll("{item}", item)
            .replaceAll("{value}", describe(found.value))
            .replaceAll("{type}", describe((found.data as {type?: unknown} | null)?.type));
    return invalidRequest(message, param === "" ? null : param, note?.code ?? code);
}

function genericMessage(param: string, leaf: string | undefined, error: ErrorObject | undefined): string {
    if (error == null)
        return leaf == null ? `Invalid value for '${param || "body"}'.` : `Missing required parameter: '${param}'.`;
    const allowed = error.keyword === "enum" ? (error.params as {allowedValues: unknown[]}).allowedValues : null;
    const detail = allowed != null
        ? `must be one of ${allowed.filter((value) => value !== null).map((value) => JSON.stringify(value)).join(", ")}`
        : error.message ?? "is invalid";
    return `Invalid value for '${param || "body"}': ${detail}.`;
}

/** A note whose code is meant for a present value: a missing one is always `missing_required_parameter`. */
function withoutCode(note: ErrorNote | undefined): ErrorNote | undefined {
    return note == null ? undefined : {...note, code: undefined};
}

function notesOf(schema: unknown): ErrorNotes {
    return (typeof schema === "object" && schema != null ? (schema as Record<string, ErrorNotes | undefined>)[errorNotesKeyword]
        : undefined) ?? {};
}

/** The wrappers (`oneOf`, `if`, …) only say that a branch failed: the failure inside is the one to report. */
const wrappers = new Set(["anyOf", "oneOf", "allOf", "if", "not"]);

function pickMostSpecific(errors: ErrorObject[]): ErrorObject | undefined {
    const useful = errors.filter(
        (error) => !wrappers.has(error.keyword) || notesOf(error.parentSchema)[error.keyword as keyof ErrorNotes] != null
    );
    const candidates = useful.length > 0 ? useful : errors;
    return candidates.reduce<ErrorObject | undefined>((best, error) => (
        best == null || error.instancePath.length > best.instancePath.length ? error : best
    ), undefined);
}

function pathOf(instancePath: string): Path {
    return instancePath.split("/").filter((part) => part !== "")
        .map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"))
        .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

function describe(value: unknown): string {
    return typeof value === "string" ? value : JSON.stringify(value) ?? String(value);
}
