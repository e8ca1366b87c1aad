/** The JSON schema the constrained-decoding benches ask for: a title, a list of characters and a story. */
export const storySchema = {
    type: "object",
    properties: {title: {type: "string"}, characters: {type: "array", items: {type: "string"}}, story: {type: "string"}},
    required: ["title", "characters", "story"],
    additionalProperties: false
};
