import type {MetadataBody} from "./defs.js";
import {note} from "./errorNotes.js";

/** JSON Schema of `POST /v1/conversations/{id}`: the metadata replaces the old (null clears it); other fields are ignored. */
export const conversationUpdateSchema = {
    $id: "conversationUpdate",
    type: "object",
    required: ["metadata"],
    properties: {metadata: {$ref: "defs#/$defs/metadata"}},
    errors: {required: note("'metadata' is required.")}
};

export type ConversationUpdateBody = {metadata: MetadataBody};
