import {note} from "./errorNotes.js";
import type {InputItemBody} from "./itemDefs.js";

/** OpenAI caps items per create/add call at 20. */
export const maxItemsPerCall = 20;

/** The `items` of a conversation body: input items, normalized as a response's input is. */
export const itemList = {
    type: "array",
    maxItems: maxItemsPerCall,
    items: {$ref: "defs#/$defs/inputItem"},
    errors: {
        type: note("'{param}' must be an array of items.", "invalid_type"),
        maxItems: note(`At most ${maxItemsPerCall} items can be added at once.`)
    }
};

/** JSON Schema of `POST /v1/conversations/{id}/items`; other fields are ignored. */
export const conversationItemsSchema = {
    $id: "conversationItems",
    type: "object",
    required: ["items"],
    properties: {items: itemList}
};

export type ConversationItemsBody = {items: InputItemBody[]};
