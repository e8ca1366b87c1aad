import {always} from "./errorNotes.js";

/**
 * JSON Schema of a list's query string (input items, conversation items), as OpenAI pages them: `order` asc|desc,
 * `limit` 1-100 in decimal digits (Number() would also read "0x10", "1e2" and " 5 "), `after` an item id.
 */
export const pageQuerySchema = {
    $id: "pageQuery",
    type: "object",
    properties: {
        order: {enum: ["asc", "desc"], ...always("'order' must be 'asc' or 'desc'.")},
        limit: {type: "string", pattern: "^(0{0,2}[1-9]|0?[1-9][0-9]|100)$", ...always("'limit' must be an integer from 1 to 100.")},
        after: {type: "string", ...always("'after' must be an item id.")}
    }
};

export type PageQuery = {order?: "asc" | "desc", limit?: string, after?: string};
