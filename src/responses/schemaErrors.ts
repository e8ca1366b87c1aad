import type {ErrorObject} from "ajv";
import {ApiError} from "../protocol/errors.js";
import {paramOfPath} from "./jsonNesting.js";

/** Turns the first ajv error of a request-body check into a 400 naming the offending parameter. */
export function requestSchemaError(errors: ErrorObject[] | null | undefined, root = ""): ApiError {
    const error = pickMostSpecific(errors ?? []);
    if (error == null)
        return new ApiError(400, "Invalid request body.", {code: "invalid_request_body"});

    if (error.keyword === "additionalProperties") {
        const name = joinParam(root, error.instancePath, String((error.params as {additionalProperty: string}).additionalProperty));
        return new ApiError(400, `Unknown parameter: '${name}'.`, {param: name, code: "unknown_parameter"});
    }

    const param = joinParam(root, error.instancePath);
    const detail = error.keyword === "enum"
        ? `must be one of ${((error.params as {allowedValues: unknown[]}).allowedValues).filter((value) => value !== null).map((value) => JSON.stringify(value)).join(", ")}`
        : error.message ?? "is invalid";
    return new ApiError(400, `Invalid value for '${param || "body"}': ${detail}.`, {param: param || null, code: error.keyword === "type" ? "invalid_type" : "invalid_value"});
}

/** ajv reports anyOf failures branch by branch; the deepest path is the one a person wants to read. */
function pickMostSpecific(errors: ErrorObject[]): ErrorObject | undefined {
    const useful = errors.filter((error) => error.keyword !== "anyOf" && error.keyword !== "oneOf");
    const candidates = useful.length > 0 ? useful : errors;
    return candidates.reduce<ErrorObject | undefined>((best, error) => (
        best == null || error.instancePath.length > best.instancePath.length ? error : best
    ), undefined);
}

function joinParam(root: string, instancePath: string, leaf?: string): string {
    const parts = instancePath.split("/").filter((part) => part !== "").map((part) => (/^\d+$/.test(part) ? Number(part) : part));
    return paramOfPath([...(root === "" ? [] : [root]), ...parts, ...(leaf == null ? [] : [leaf])]);
}
