import {Ajv2020, type ValidateFunction} from "ajv/dist/2020.js";
import {requestSchemaError} from "../schemaErrors.js";
import {compactRequestSchema, type CompactRequestBody} from "./compactRequestSchema.js";
import {conversationCreateSchema, type ConversationCreateBody} from "./conversationCreate.js";
import {conversationItemsSchema, type ConversationItemsBody} from "./conversationItems.js";
import {conversationUpdateSchema, type ConversationUpdateBody} from "./conversationUpdate.js";
import {createRequestSchema, type CreateRequestBody} from "./createRequestSchema.js";
import {defsSchema} from "./defs.js";
import {errorNotesKeyword} from "./errorNotes.js";
import {pageQuerySchema, type PageQuery} from "./pageQuery.js";
import {socketMessageSchema, type SocketMessageBody} from "./socketMessage.js";

/**
 * The request schemas, compiled once at load by one ajv instance that holds the shared `$defs`. `verbose` keeps the
 * failing schema node on each error, where `schemaErrors.ts` finds its message; `allErrors: false` stops at the
 * first failure (a client fixes one thing at a time, and a refused body costs no more than it must).
 */
const ajv = new Ajv2020({strict: true, strictRequired: false, allowUnionTypes: true, allErrors: false, verbose: true, discriminator: true});
ajv.addKeyword({keyword: errorNotesKeyword, schemaType: "object"});
ajv.addSchema(defsSchema);

/**
 * A schema whose top-level properties name every field of the body type it is compiled for: a field added to the
 * type and not to the schema (or renamed in one only) fails the typecheck.
 */
export type SchemaOf<T> = {properties: {[K in keyof Required<T>]: unknown}};

/** Compiles a request schema on the shared instance (its `$defs` and error notes): each protocol's folder compiles its own. */
export function compileRequestSchema<T>(schema: SchemaOf<T>): ValidateFunction<T> {
    return ajv.compile<T>(schema);
}

const compile = compileRequestSchema;

export const validateCreateRequest = compile<CreateRequestBody>(createRequestSchema);
export const validateCompactRequest = compile<CompactRequestBody>(compactRequestSchema);
export const validateConversationCreate = compile<ConversationCreateBody>(conversationCreateSchema);
export const validateConversationUpdate = compile<ConversationUpdateBody>(conversationUpdateSchema);
export const validateConversationItems = compile<ConversationItemsBody>(conversationItemsSchema);
export const validatePageQuery = compile<PageQuery>(pageQuerySchema);
export const validateSocketMessage = compile<SocketMessageBody>(socketMessageSchema);

/**
 * The body typed as its schema says, or a 400 naming the first parameter that does not fit. Callers bound the
 * body's nesting first (`checkJsonNesting`, in the JSON body middleware and the WebSocket reader): ajv recurses.
 */
export function checkBody<T>(validate: ValidateFunction<T>, body: unknown): T {
    if (!validate(body))
        throw requestSchemaError(validate.errors);
    return body;
}
