import {tool} from "ai";
import {z} from "zod";

/**
 * The weather function the client tests offer, as a JSON schema. An enum keeps the forced call short: the tiny model
 * may not close a free string within the output limit.
 */
export const weatherParameters = {
    type: "object",
    properties: {city: {type: "string", enum: ["Paris", "Oslo", "Rome"], description: "City name"}},
    required: ["city"],
    additionalProperties: false
};

/** The same function as an AI SDK tool, recording each city it is called for in `calls`. */
export function aiSdkWeatherTool(calls: string[]) {
    return tool({
        description: "Get the weather for a city",
        inputSchema: z.object({city: z.enum(["Paris", "Oslo"])}),
        execute: ({city}) => {
            calls.push(city);
            return Promise.resolve({city, conditions: "sunny"});
        }
    });
}
