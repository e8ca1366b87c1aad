import {itemList} from "./conversationItems.js";
import type {MetadataBody} from "./defs.js";
import type {InputItemBody} from "./itemDefs.js";

/** JSON Schema of `POST /v1/conversations`; other fields are ignored. */
export const conversationCreateSchema = {
    $id: "conversationCreate",
    type: "object",
    properties: {
        items: {...itemList, type: ["array", "null"]},
        metadata: {$ref: "defs#/$defs/metadata"}
    }
};

export type ConversationCreateBody = {items?: InputItemBody[] | null, metadata?: MetadataBody};
